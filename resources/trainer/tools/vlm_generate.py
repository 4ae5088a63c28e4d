"""Greedy replies of a Hugging Face VLM, with or without a vlm-sft / vlm-grpo adapter, to the chats of a vlm bundle's
steps, written as JSON: the measurement half of test/trainer/vlm-sft-experiment.ts, which parses the replies with the
workbench's action formats.

    python vlm_generate.py --model DIR --bundle held-out.tar [--adapter DIR] [--min-pixels N] [--max-pixels N]
                           [--max-new-tokens 64] [--threads 2] --out replies.json

The prompts are the trainer's: the samples vlm_samples.py reads from the bundle (each step's recorded chat and
screenshot) through the model's chat template and processor, with the image size pinned as a job pins it. Decoding is
greedy and stops at the end-of-turn token the trainer appends to targets (or after --max-new-tokens). With --adapter,
each sample gets two replies: "base" (the adapter disabled: the model before training; null with --skip-base) and
"adapter".

Output: {"model", "adapter", "seconds", "samples": [{"episode", "k" (its index among the episode's samples),
"target", "targetTokens", "base", "adapter"?}]}.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # resources/trainer: awb_trainer


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--bundle", required=True, help="a vlm bundle (.tar) whose steps carry messages and screenshots")
    p.add_argument("--adapter", help="a peft adapter folder (a vlm job's artifacts/adapter)")
    p.add_argument("--min-pixels", type=int)
    p.add_argument("--max-pixels", type=int)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--skip-base", action="store_true", help="with --adapter: no reply with the adapter disabled (\"base\" is null)")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)

    import torch

    torch.set_num_threads(a.threads)
    from PIL import Image

    from awb_trainer.bundle import Bundle
    from awb_trainer.jobs.vlm_hf import end_of_turn, load_processor
    from awb_trainer.jobs.vlm_samples import samples as read_samples
    import transformers

    t0 = time.monotonic()
    processor = load_processor(a.model, a.min_pixels, a.max_pixels)
    eot_id, _ = end_of_turn(processor, a.model)
    auto = getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
    model = auto.from_pretrained(a.model, dtype=torch.float32).eval()
    if a.adapter:
        import peft

        model = peft.PeftModel.from_pretrained(model, a.adapter).eval()
    tok = processor.tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else eot_id

    def reply(sample: dict) -> str:
        prompt = processor.apply_chat_template(sample["messages"], add_generation_prompt=True, tokenize=False)
        images = [Image.open(io.BytesIO(b)).convert("RGB") for b in sample["images"]] or None
        enc = processor(text=[prompt], images=images, return_tensors="pt", add_special_tokens=False)
        out = model.generate(**enc, max_new_tokens=a.max_new_tokens, do_sample=False, eos_token_id=eot_id, pad_token_id=pad)
        return tok.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)

    with Bundle(a.bundle) as bundle:
        rows = read_samples(bundle)
    out = []
    seen: dict[str, int] = {}
    with torch.no_grad():
        for s in rows:
            k = seen.get(s["episode"], 0)
            seen[s["episode"]] = k + 1
            # the target's length in tokens: what --max-new-tokens must cover (the end-of-turn token aside)
            rec = {"episode": s["episode"], "k": k, "target": s["target"], "targetTokens": len(tok(s["target"], add_special_tokens=False).input_ids)}
            if a.adapter:
                if a.skip_base:
                    rec["base"] = None
                else:
                    with model.disable_adapter():
                        rec["base"] = reply(s)
                rec["adapter"] = reply(s)
            else:
                rec["base"] = reply(s)
            out.append(rec)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump({"model": a.model, "adapter": a.adapter, "seconds": time.monotonic() - t0, "samples": out}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
