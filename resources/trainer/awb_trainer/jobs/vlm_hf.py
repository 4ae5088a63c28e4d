"""The vlm.Backend of a Hugging Face vision-language model (Qwen2.5-VL, UI-TARS, GLM-4.1V…) with a peft LoRA.
transformers, peft and Pillow are imported here only; where they do not import, only awb-tiny-lm is accepted.

A sample is scored as the server produced it: the chat prompt goes through the processor once (chat template, the
screenshot resized within the job's pixel bounds and expanded to its image tokens), the answer is tokenised on its
own and appended, then the end-of-turn token the server sampled to stop. Tokenising prompt + answer as one string
would let BPE merge the prompt's last "\\n" with an answer that starts with whitespace, and the token boundary would
no longer be the one the policy generated at.

LoRA goes on the language model only. vLLM serves a Qwen2.5-VL adapter by stripping peft's "base_model.model." and
mapping the rest with Qwen2_5_VLForConditionalGeneration.hf_to_vllm_mapper ("model.language_model." →
"language_model.model.", "model.visual." → "visual.", "lm_head." → "language_model.lm_head."); its LoRA layers are
the language model's q/k/v_proj (packed as qkv_proj), o_proj, gate/up_proj (packed as gate_up_proj) and down_proj.
So the adapter's keys must be base_model.model.model.language_model.layers.<i>.<self_attn|mlp>.<proj>.lora_<A|B>.weight;
up_proj / down_proj also name the vision blocks' MLPs, whose LoRA vLLM does not serve — they are excluded here.
"""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import dataclass
from typing import Any, ContextManager, Optional

import torch

from ..errors import BundleError, ConfigError

ADAPTER_META = "awb_adapter.json"  # beside adapter_config.json: base model, pixel bounds, end-of-turn token
_MARKER = "\x00awb-answer\x00"


class ModelFolderError(ConfigError):
    """config.model names something the HF backend cannot train: no vision-language model, no processor/tokenizer."""

    def __init__(self, model: str, problem: str):
        super().__init__("config.model", problem, model)


class PixelSettingsMismatch(BundleError):
    """A step's recorded usage.promptTokens (the server's count) differs from the trainer's count of the same prompt:
    the server resized the screenshot to another number of image tokens than the trainer's processor would."""

    def __init__(self, where: str, server: int, trainer: int, pixels: dict):
        super().__init__(where, f"pixel settings differ between server and trainer: the server counted {server} prompt tokens, "
                                f"the trainer's processor {trainer} (minPixels {pixels['minPixels']}, maxPixels {pixels['maxPixels']}); "
                                "set the job's minPixels/maxPixels to the server's mm_processor_kwargs")
        self.server = server
        self.trainer = trainer


@dataclass
class Encoded:
    inputs: dict[str, torch.Tensor]  # model inputs of prompt + answer (batch of one)
    prompt_len: int
    answer_len: int


def load_processor(model_id: str, min_pixels: Optional[int], max_pixels: Optional[int]) -> Any:
    """AutoProcessor of a VLM with its image size pinned: min/max pixels set on the image processor (transformers'
    from_pretrained does not pass them through) so the trainer counts the image tokens the server counts."""
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(model_id)
    except (OSError, ValueError, KeyError) as e:
        raise ModelFolderError(model_id, f"has no model config that loads ({type(e).__name__}: {_first_line(e)})") from None
    vlm_types = getattr(transformers.models.auto.modeling_auto, "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", {})
    if config.model_type not in vlm_types:
        raise ModelFolderError(model_id, f"is not a vision-language model (its config is a {type(config).__name__}, model_type "
                                         f"{config.model_type!r}; transformers' image-text-to-text models are the ones trained here)")
    try:
        processor = transformers.AutoProcessor.from_pretrained(model_id)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ModelFolderError(model_id, f"has no processor or tokenizer that loads ({type(e).__name__}: {_first_line(e)})") from None
    image = getattr(processor, "image_processor", None)
    if image is None or getattr(processor, "tokenizer", None) is None:
        raise ModelFolderError(model_id, f"is not a vision-language model: its processor is a {type(processor).__name__} without "
                                         "an image processor and a tokenizer")
    size = getattr(image, "size", None)
    pinnable = size is not None and getattr(size, "shortest_edge", None) is not None and getattr(size, "longest_edge", None) is not None
    if (min_pixels is not None or max_pixels is not None) and not pinnable:
        raise ConfigError("config.minPixels", f"model {model_id}'s {type(image).__name__} has no min/max pixel bounds to set", min_pixels)
    if pinnable:
        lo = min_pixels if min_pixels is not None else size.shortest_edge
        hi = max_pixels if max_pixels is not None else size.longest_edge
        if lo > hi:
            raise ConfigError("config.minPixels", f"must be ≤ maxPixels ({hi})", lo)
        image.size = {"shortest_edge": lo, "longest_edge": hi}
    return processor


def _first_line(e: BaseException, limit: int = 300) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return (lines[0] if lines else type(e).__name__)[:limit]


def pixel_bounds(processor: Any) -> dict:
    size = getattr(processor.image_processor, "size", None)
    get = (lambda k: size.get(k)) if isinstance(size, dict) else (lambda k: getattr(size, k, None))
    return {"minPixels": get("shortest_edge"), "maxPixels": get("longest_edge")}


def end_of_turn(processor: Any, model_id: str) -> tuple[int, str]:
    """The token that ends an assistant turn — what the server samples to stop: the first special token the chat
    template writes after an assistant message's content (Qwen's <|im_end|>), else the tokenizer's eos token."""
    tok = processor.tokenizer
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": _MARKER}]
    try:
        text = processor.apply_chat_template(chat, tokenize=False)
    except Exception:  # a template that refuses this chat: fall back to the eos token below
        text = ""
    special = set(tok.all_special_ids) | {i for i, t in tok.added_tokens_decoder.items() if t.special}
    if _MARKER in text:
        for i in tok(text.split(_MARKER, 1)[1], add_special_tokens=False)["input_ids"]:
            if i in special:
                return i, tok.convert_ids_to_tokens(i)
    if tok.eos_token_id is None:
        raise ModelFolderError(model_id, "has a tokenizer with no end-of-turn token (its chat template writes none and eos_token is unset)")
    return tok.eos_token_id, tok.eos_token


def _language_model_prefix(base: torch.nn.Module, model_id: str) -> str:
    for name, _ in base.named_modules():
        if name.split(".")[-1] == "language_model":
            return name + "."
    raise ModelFolderError(model_id, f"is a {type(base).__name__} without a language_model submodule; LoRA goes on the language model")


class HfBackend:
    def __init__(self, config: dict, device: torch.device, resume_dir: Optional[str] = None):
        import peft
        import transformers

        model_id, lora = config["model"], config["lora"]
        self.model_id = model_id
        self.processor = load_processor(model_id, config.get("minPixels"), config.get("maxPixels"))
        self.eot_id, self.eot_text = end_of_turn(self.processor, model_id)
        auto = getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        try:
            base = auto.from_pretrained(model_id, dtype=dtype)
        except ValueError as e:  # transformers: "Unrecognized configuration class … for this kind of AutoModel"
            raise ModelFolderError(model_id, f"is not a vision-language model ({_first_line(e)})") from None
        base = base.to(device)
        prefix = _language_model_prefix(base, model_id)
        if config.get("gradientCheckpointing"):
            # Non-reentrant checkpointing recomputes through the frozen base without needing the inputs to require
            # grad, so peft's enable_input_require_grads (the reentrant variant's workaround) is not needed.
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            base.config.use_cache = False
        if resume_dir is not None:
            # peft restores the saved adapter's own LoraConfig (rank, alpha, targets, exclusions, dropout); vlm_resume.py
            # has already checked that rank, alpha and targets equal this job's.
            try:
                self.module = peft.PeftModel.from_pretrained(base, resume_dir, is_trainable=True)
            except (RuntimeError, ValueError, KeyError) as e:  # torch: "size mismatch for …lora_A.weight"
                raise ConfigError("config.resumeFrom", f"holds an adapter that does not fit {model_id} ({_first_line(e)})",
                                  config.get("resumeFrom")) from None
            self._check_resumed(resume_dir, config.get("resumeFrom"))
        else:
            lora_config = peft.LoraConfig(r=lora["r"], lora_alpha=lora["alpha"], lora_dropout=lora["dropout"],
                                          target_modules=lora["targetModules"], exclude_modules=f"^(?!{re.escape(prefix)}).*",
                                          task_type="CAUSAL_LM")
            try:
                self.module = peft.get_peft_model(base, lora_config)
            except ValueError as e:  # peft: "Target modules … not found in the base model"
                raise ConfigError("config.lora.targetModules", f"matches no layer of {model_id}'s language model ({_first_line(e)})",
                                  lora["targetModules"]) from None
        self.device = device

    def _check_resumed(self, resume_dir: str, job: Optional[str]) -> None:
        """Every saved tensor was loaded: peft only warns about keys the model lacks (an adapter of another base)."""
        import peft
        from safetensors import safe_open

        with safe_open(os.path.join(resume_dir, "adapter_model.safetensors"), framework="pt") as f:
            saved = set(f.keys())
        mine = set(peft.get_peft_model_state_dict(self.module).keys())
        if saved != mine:
            odd = sorted(saved ^ mine)[:3]
            raise ConfigError("config.resumeFrom", f"holds an adapter for another base model than {self.model_id}: keys {odd} do not match", job)

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.module.parameters() if p.requires_grad]

    def pixels(self) -> dict:
        return pixel_bounds(self.processor)

    def encode(self, sample: dict) -> Encoded:
        """The prompt through the processor (one image-processor call), the answer's tokens and the end-of-turn token
        appended — once, also when the recorded reply already ends with it."""
        from PIL import Image

        prompt = self.processor.apply_chat_template(sample["messages"], add_generation_prompt=True, tokenize=False)
        images = [Image.open(io.BytesIO(b)).convert("RGB") for b in sample["images"]] or None
        enc = self.processor(text=[prompt], images=images, return_tensors="pt", add_special_tokens=False)
        prompt_ids = enc["input_ids"]
        n_prompt = prompt_ids.shape[1]
        if sample.get("promptTokens") is not None and sample["promptTokens"] != n_prompt:
            raise PixelSettingsMismatch(sample.get("where", f"episodes.jsonl episode {sample['episode']}"), sample["promptTokens"], n_prompt, self.pixels())
        answer = sample["target"][:-len(self.eot_text)] if sample["target"].endswith(self.eot_text) else sample["target"]
        ids = self.processor.tokenizer(answer, add_special_tokens=False)["input_ids"] + [self.eot_id]
        answer_ids = torch.tensor([ids], dtype=prompt_ids.dtype)
        inputs: dict[str, torch.Tensor] = {}
        for k, v in enc.items():
            if isinstance(v, torch.Tensor) and v.dim() == 2 and v.shape == prompt_ids.shape:
                # per-token inputs: the ids, the attention mask (1), token-type ids (0: text)
                tail = answer_ids if k == "input_ids" else torch.ones_like(answer_ids) if k == "attention_mask" else torch.zeros_like(answer_ids)
                v = torch.cat([v, tail.to(v.dtype)], dim=1)
            inputs[k] = v.to(self.device) if isinstance(v, torch.Tensor) else v
        return Encoded(inputs, n_prompt, len(ids))

    def token_log_probs(self, net: Any, enc: Encoded) -> torch.Tensor:
        """log π(answer token) for every answer token: hidden states at positions prompt_len − 1 … L − 2 score tokens
        prompt_len … L − 1. Only those positions go through lm_head and the float32 log-softmax (logits_to_keep), so
        memory is answer × vocab, not (prompt with its image tokens) × vocab."""
        ids = enc.inputs["input_ids"][0]
        length = ids.shape[0]
        keep = torch.arange(enc.prompt_len - 1, length - 1, device=ids.device)
        logits = net(**enc.inputs, logits_to_keep=keep, use_cache=False).logits[0].float()
        return torch.log_softmax(logits, dim=-1).gather(-1, ids[enc.prompt_len:].unsqueeze(-1)).squeeze(-1)

    def reference(self) -> ContextManager:
        return self.module.disable_adapter()

    def save_adapter(self, out_dir: str) -> None:
        self.module.save_pretrained(out_dir, safe_serialization=True)
        meta = {"format": "awb-adapter", "version": 1, "baseModel": self.model_id, **self.pixels(),
                "endOfTurnToken": self.eot_text}
        with open(os.path.join(out_dir, ADAPTER_META), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
