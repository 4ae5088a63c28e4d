"""The vlm.Backend of a Hugging Face vision-language model (Qwen2.5-VL, UI-TARS, GLM-4.1V…) with a peft LoRA.
transformers, peft and Pillow are imported here only; where they do not import, only awb-tiny-lm is accepted."""

from __future__ import annotations

import io
from typing import Any, ContextManager, Optional

import torch


class HfBackend:
    def __init__(self, model_id: str, lora: dict, device: torch.device, resume_dir: Optional[str] = None):
        import peft
        import transformers

        self.processor = transformers.AutoProcessor.from_pretrained(model_id)
        auto = getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        base = auto.from_pretrained(model_id, torch_dtype=dtype).to(device)
        if resume_dir is not None:
            # peft restores the saved adapter's own LoraConfig (rank, alpha, targets, dropout); vlm_resume.py has
            # already checked that rank, alpha and targets equal this job's.
            self.module = peft.PeftModel.from_pretrained(base, resume_dir, is_trainable=True)
        else:
            config = peft.LoraConfig(r=lora["r"], lora_alpha=lora["alpha"], lora_dropout=lora["dropout"],
                                     target_modules=lora["targetModules"], task_type="CAUSAL_LM")
            self.module = peft.get_peft_model(base, config)
        self.device = device

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.module.parameters() if p.requires_grad]

    def encode(self, sample: dict) -> tuple[dict, int]:
        """Model inputs of chat prompt + answer (the processor's chat template, with the step's screenshot when the chat
        has an image part) and the prompt's token count."""
        from PIL import Image

        prompt = self.processor.apply_chat_template(sample["messages"], add_generation_prompt=True)
        images = None
        if sample["images"]:
            images = [Image.open(io.BytesIO(sample["image"])).convert("RGB")]
        prompt_len = self.processor(text=[prompt], images=images, return_tensors="pt")["input_ids"].shape[1]
        inputs = self.processor(text=[prompt + sample["target"]], images=images, return_tensors="pt")
        return {k: v.to(self.device) for k, v in inputs.items()}, prompt_len

    def token_log_probs(self, net: Any, enc: tuple[dict, int]) -> torch.Tensor:
        """log π(answer token) for every answer token (next-token shift: logits at t score token t + 1)."""
        inputs, prompt_len = enc
        logits = net(**inputs).logits[0, :-1].float()
        ids = inputs["input_ids"][0, 1:]
        lp = torch.log_softmax(logits, dim=-1).gather(-1, ids.unsqueeze(-1)).squeeze(-1)
        return lp[prompt_len - 1:]

    def reference(self) -> ContextManager:
        return self.module.disable_adapter()

    def save_adapter(self, out_dir: str) -> None:
        self.module.save_pretrained(out_dir, safe_serialization=True)
