"""vlm-sft / vlm-grpo: LoRA fine-tuning of a Hugging Face vision-language model (Qwen2.5-VL, UI-TARS, GLM-4.1V…)
on the store's export (episodes.jsonl + screenshots/). Needs transformers and peft (and Pillow, which transformers'
image processors use); they are imported here only, and health.kinds lists these kinds only where they import.

One sample per recorded step: the screenshot, the instruction and the last actions as a chat prompt; the target is
what the policy answered (`raw`, else the parsed action as JSON).
- vlm-sft: mean token cross-entropy of the target (prompt tokens masked with -100).
- vlm-grpo: the clipped surrogate + k3 KL of grpo_loss.py per target token, aggregated token-mean (DAPO); log π_old
  is the adapter's before the update (on-policy batch), log π_ref the base model (adapter disabled). The advantage is
  the episode's `advantage` field when the workbench wrote one, else the trajectory-level group advantage of the
  outcome reward with episodes grouped by (template, seed) (core/rl/grpo.ts defaults: group std, sample, eps 1e-4).
The adapter is saved with peft's save_pretrained (adapter_model.safetensors + adapter_config.json); with
config.publish it is loaded into a vLLM server through POST /v1/load_lora_adapter.
"""

from __future__ import annotations

import io
import json
import math
import os
import urllib.request
from typing import Any

import torch

from ..bundle import Bundle
from ..errors import BundleError
from .context import JobContext
from .grpo_loss import LossOptions, batch_loss
from .torch_util import Distributed, clip_grad_norm

HISTORY = 5


def _load(model_id: str, lora: dict, device: torch.device) -> tuple[Any, Any]:
    import peft
    import transformers

    processor = transformers.AutoProcessor.from_pretrained(model_id)
    auto = getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = auto.from_pretrained(model_id, torch_dtype=dtype).to(device)
    config = peft.LoraConfig(r=lora["r"], lora_alpha=lora["alpha"], lora_dropout=lora["dropout"],
                             target_modules=lora["targetModules"], task_type="CAUSAL_LM")
    return processor, peft.get_peft_model(model, config)


def _samples(bundle: Bundle) -> list[dict]:
    """One dict per step that has a screenshot and a target: image bytes, prompt parts, target text, episode key."""
    out = []
    for line, ep in bundle.jsonl("episodes.jsonl"):
        history: list[str] = []
        for step in ep.get("steps") or []:
            target = step.get("raw") if isinstance(step.get("raw"), str) else (json.dumps(step["action"]) if step.get("action") else None)
            shot = step.get("screenshot")
            if target and shot:
                out.append({"image": bundle.read(shot), "instruction": ep.get("instruction", ""), "history": history[-HISTORY:],
                            "target": target, "episode": ep.get("uid", f"line {line}"), "group": (ep.get("template"), ep.get("seed")),
                            "reward": _outcome(ep), "advantage": ep.get("advantage")})
            history.append(step.get("description") or json.dumps(step.get("action")))
    if not out:
        raise BundleError("episodes.jsonl", "no step has both a screenshot and an answer to learn from")
    return out


def _outcome(ep: dict) -> float:
    steps = ep.get("steps") or []
    value = ((steps[-1].get("rewards") or {}).get("outcome") or {}).get("value") if steps else None
    return float(value) if isinstance(value, (int, float)) else math.nan


def _advantages(samples: list[dict]) -> None:
    """Â = (R − μ_g) / (σ_g + 1e-4) over the episodes of a group (sample std; NaN rewards and zero-std groups → 0)."""
    groups: dict[Any, dict[str, float]] = {}
    for s in samples:
        groups.setdefault(s["group"], {})[s["episode"]] = s["reward"]
    stats = {}
    for g, eps in groups.items():
        vals = [v for v in eps.values() if math.isfinite(v)]
        mean = sum(vals) / len(vals) if vals else 0.0
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0.0
        stats[g] = (mean, std, len(vals) < 2 or all(v == vals[0] for v in vals))
    for s in samples:
        if isinstance(s["advantage"], (int, float)):
            continue
        mean, std, degenerate = stats[s["group"]]
        s["advantage"] = 0.0 if degenerate or not math.isfinite(s["reward"]) else (s["reward"] - mean) / (std + 1e-4)


def _encode(processor: Any, sample: dict, device: torch.device) -> tuple[dict, torch.Tensor]:
    """Model inputs of prompt + target, and labels with the prompt masked."""
    from PIL import Image

    history = "\n".join(f"- {h}" for h in sample["history"]) or "(none)"
    messages = [{"role": "user", "content": [
        {"type": "image"},
        {"type": "text", "text": f"Task: {sample['instruction']}\nPrevious actions:\n{history}\nWhat is the next action?"}]}]
    prompt = processor.apply_chat_template(messages, add_generation_prompt=True)
    image = Image.open(io.BytesIO(sample["image"])).convert("RGB")
    prompt_len = processor(text=[prompt], images=[image], return_tensors="pt")["input_ids"].shape[1]
    inputs = processor(text=[prompt + sample["target"]], images=[image], return_tensors="pt")
    labels = inputs["input_ids"].clone()
    labels[:, :prompt_len] = -100
    return {k: v.to(device) for k, v in inputs.items()}, labels.to(device)


def _token_log_probs(model: Any, inputs: dict, labels: torch.Tensor) -> torch.Tensor:
    """log π(target token) for every unmasked label position (next-token shift)."""
    logits = model(**inputs).logits[:, :-1].float()
    target = labels[:, 1:]
    mask = target != -100
    lp = torch.log_softmax(logits, dim=-1).gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return lp[mask]


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    c = ctx.config
    samples = _samples(bundle)
    processor, model = _load(c["model"], c["lora"], dist.device)
    net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dist.device.index] if dist.device.type == "cuda" else None) if dist.enabled else model
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=c["learningRate"])
    gen = torch.Generator().manual_seed(c["seed"])
    grpo = ctx.kind == "vlm-grpo"
    if grpo:
        _advantages(samples)
        opts = LossOptions(clip_eps=c["clipEps"], clip_eps_high=c["clipEpsHigh"] or c["clipEps"], kl_beta=c["klBeta"],
                           max_log_ratio=c["maxLogRatio"], aggregation="step-mean", max_steps=None)
    ctx.log(f"{ctx.kind}: {len(samples)} steps, model {c['model']}, LoRA r={c['lora']['r']}, trainable {sum(p.numel() for p in params)}")
    step = 0
    for epoch in range(1, c["epochs"] + 1):
        order = torch.randperm(len(samples), generator=gen).tolist()
        for b in range(0, len(order), c["batchSize"]):
            ctx.check_cancel()
            mb = [samples[i] for i in dist.shard(order[b:b + c["batchSize"]])]
            opt.zero_grad(set_to_none=True)
            total = 0.0
            for s in mb:
                inputs, labels = _encode(processor, s, dist.device)
                if not grpo:
                    loss = net(**inputs, labels=labels).loss / len(mb)
                else:
                    with torch.no_grad():
                        old = _token_log_probs(model, inputs, labels)
                        with model.disable_adapter():
                            ref = _token_log_probs(model, inputs, labels) if opts.kl_beta > 0 else None
                    new = _token_log_probs(net, inputs, labels)
                    adv = torch.full_like(new, float(s["advantage"]))
                    loss, _ = batch_loss(new, old, ref, adv, [len(new)], opts)
                    loss = loss / len(mb)
                loss.backward()
                total += float(loss.detach())
            norm = clip_grad_norm(params, c["maxGradNorm"] or None)
            opt.step()
            step += 1
            ctx.metric(step, {"loss/" + ("grpo" if grpo else "sft"): total, "optim/grad_norm": norm, "epoch": float(epoch)})
    if ctx.is_main:
        out = ctx.artifact("adapter/adapter_config.json")
        model.save_pretrained(os.path.dirname(out), safe_serialization=True)
        if c["publish"]:
            _publish(ctx, c["publish"], os.path.dirname(out))


def _publish(ctx: JobContext, publish: dict, adapter_dir: str) -> None:
    """vLLM's dynamic LoRA loading (POST /v1/load_lora_adapter; the server runs with VLLM_ALLOW_RUNTIME_LORA_UPDATING=1
    and must see adapter_dir, e.g. on a shared disk). The adapter is named <name>-<job id>, a new version per job."""
    name = f"{publish['name']}-{ctx.record['id']}"
    headers = {"Content-Type": "application/json"}
    if publish.get("apiKeyEnv"):
        headers["Authorization"] = f"Bearer {os.environ[publish['apiKeyEnv']]}"
    body = json.dumps({"lora_name": name, "lora_path": os.path.abspath(adapter_dir)}).encode()
    req = urllib.request.Request(publish["baseUrl"].rstrip("/") + "/v1/load_lora_adapter", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=120) as resp:
        ctx.log(f"published adapter {name} to {publish['baseUrl']} ({resp.status})")
