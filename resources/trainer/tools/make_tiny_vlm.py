"""Builds a tiny, randomly initialised Qwen2.5-VL model folder with no download, for AWB_TINY_VLM.

    python make_tiny_vlm.py OUT_DIR [--check]
    python make_tiny_vlm.py --cached        # prints the cached folder, building it first if needed

--cached keeps one build per recipe under $AWB_CACHE_DIR (default ~/.cache/awb): the folder's name carries a hash of
this file, the corpus and the torch / transformers / tokenizers versions, so a changed recipe builds a new folder and the tests
(which read its path into AWB_TINY_VLM) never see a stale one. Builds go to a temporary folder renamed into place.

- tokenizer: byte-level BPE (Qwen2's pre-tokenizer split: single digits) trained here with `tokenizers` on
  tiny_vlm_corpus.jsonl (SimDroid's texts and the action formats, written by scripts/tiny-vlm-corpus.ts), plus Qwen's
  special tokens, wrapped as a PreTrainedTokenizerFast, with a Qwen-style chat template;
- model: Qwen2_5_VLForConditionalGeneration from a tiny Qwen2_5_VLConfig (2 text layers, width 128, text weights of
  std 1.2/sqrt(128); 2 vision blocks, width 32; ~0.9M parameters), weights drawn after torch.manual_seed(0);
- processor: Qwen2_5_VLProcessor with Qwen2VLImageProcessor (small min/max pixels) and the video processor.
--check reloads the folder with AutoProcessor + AutoModelForImageTextToText and runs a forward pass on one image.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
           "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
           "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]

# A chat is: an optional system turn (a default one when the first message is not a system message), then each
# message as <|im_start|>ROLE\n CONTENT <|im_end|>\n; an image part becomes <|vision_start|><|image_pad|><|vision_end|>
# (the processor expands <|image_pad|> to one token per merged patch), a video part likewise with <|video_pad|>.
CHAT_TEMPLATE = (
    "{% for m in messages %}"
    "{% if loop.first and m['role'] != 'system' %}"
    "<|im_start|>system\nYou are a phone agent.<|im_end|>\n"
    "{% endif %}"
    "<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for part in m['content'] %}"
    "{% if part['type'] == 'image' or 'image' in part or 'image_url' in part %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'video' or 'video' in part %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in part %}{{ part['text'] }}"
    "{% endif %}"
    "{% endfor %}{% endif %}"
    "<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_vlm_corpus.jsonl")
VOCAB = 2048
# Qwen2's pre-tokenizer split: contractions, letter runs with one leading non-letter, single digits, punctuation runs,
# newlines, spaces.
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def corpus() -> list[str]:
    """The texts the tokenizer learns from, one JSON string a line: SimDroid's texts and the action formats
    (scripts/tiny-vlm-corpus.ts writes the file)."""
    with open(CORPUS, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def build_tokenizer():
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    # Qwen2's pre-tokenizer (its tokenizer.json): the split regex, then bytes → unicode without GPT-2's own regex; its
    # \s*[\r\n]+ keeps a run of newlines together, so "\n" + "\n" across the prompt/answer boundary is one token
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   unk_token=None, model_max_length=4096)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build(out: str) -> None:
    from transformers import (Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2_5_VLProcessor,
                              Qwen2VLImageProcessor)

    tokenizer = build_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL}
    vocab = (len(tokenizer) + 63) // 64 * 64
    # Width 128, not 64: the LoRA trains everything but the frozen random lm_head, and 2048 random token directions in
    # 64 dimensions are too crowded for any hidden state to put most of the mass on a set of tokens (the ten digits of a
    # coordinate); at 128 SFT learns the action formats in a few CPU minutes. initializer_range: Qwen2.5-VL-7B's 0.02
    # at width 3584 is 1.2 / sqrt(width); the same ratio here (with 0.02 the random logits stay within about ±1, and
    # SFT stalls near ln(vocab)).
    width = 128
    text = dict(vocab_size=vocab, hidden_size=width, intermediate_size=2 * width, initializer_range=round(1.2 / width ** 0.5, 4),
                num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096, rms_norm_eps=1e-6,
                # head_dim 32: the three M-RoPE sections (time, height, width) cover head_dim / 2 = 16 frequencies
                rope_parameters={"rope_type": "default", "mrope_section": [4, 6, 6], "rope_theta": 1_000_000.0},
                bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])
    vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=width, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2, window_size=112, fullatt_block_indexes=[1], in_channels=3)
    config = Qwen2_5_VLConfig(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                              video_token_id=ids["<|video_pad|>"], vision_start_token_id=ids["<|vision_start|>"],
                              vision_end_token_id=ids["<|vision_end|>"], tie_word_embeddings=False)
    import torch

    torch.manual_seed(0)
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)

    image_processor = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=28 * 28 * 16, patch_size=14,
                                            temporal_patch_size=2, merge_size=2)
    video_processor = None
    try:
        from transformers import Qwen2VLVideoProcessor

        video_processor = Qwen2VLVideoProcessor(min_pixels=56 * 56, max_pixels=28 * 28 * 16, patch_size=14,
                                                temporal_patch_size=2, merge_size=2)
    except Exception as e:  # torchvision missing: the processor is saved without its video part
        print(f"no video processor ({type(e).__name__}: {e})", file=sys.stderr)
    processor = Qwen2_5_VLProcessor(image_processor=image_processor, tokenizer=tokenizer,
                                    video_processor=video_processor, chat_template=CHAT_TEMPLATE)
    processor.save_pretrained(out)
    n = sum(p.numel() for p in model.parameters())
    print(f"tiny Qwen2.5-VL in {out}: {n} parameters, vocab {vocab} (tokenizer {len(tokenizer)}), "
          f"image_token_id {config.image_token_id}, video_token_id {config.video_token_id}")


def check(out: str, device: str = "cpu") -> None:
    """Reload as vlm_hf.py does and run one forward pass with a small image."""
    import torch
    import transformers
    from PIL import Image

    processor = transformers.AutoProcessor.from_pretrained(out)
    auto = getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    model = auto.from_pretrained(out, dtype=dtype).to(device).eval()
    chat = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Task: Press OK"}]}]
    prompt = processor.apply_chat_template(chat, add_generation_prompt=True)
    image = Image.new("RGB", (32, 48), (200, 30, 30))
    inputs = processor(text=[prompt + "tap(3)"], images=[image], return_tensors="pt").to(device)
    with torch.no_grad():
        logits = model(**inputs).logits
    n_img = int((inputs["input_ids"] == model.config.image_token_id).sum())
    print(f"check ok: {type(processor).__name__} + {type(model).__name__} on {device} ({dtype}); prompt {prompt!r}; "
          f"input_ids {tuple(inputs['input_ids'].shape)}, {n_img} image tokens, pixel_values {tuple(inputs['pixel_values'].shape)}, "
          f"image_grid_thw {inputs['image_grid_thw'].tolist()}, logits {tuple(logits.shape)} finite={bool(torch.isfinite(logits).all())}")


def recipe_hash() -> str:
    # The installed versions from the packages' metadata: importing torch and transformers to ask them costs ~5 s of CPU
    # on every --cached call (each test process that needs the model makes one).
    from importlib.metadata import version

    h = hashlib.sha256()
    for path in (os.path.abspath(__file__), CORPUS):
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(f"torch {version('torch')} transformers {version('transformers')} tokenizers {version('tokenizers')}".encode())
    return h.hexdigest()[:16]


def cached() -> str:
    """The cached build of the current recipe, built (into a temporary folder, then renamed) when missing."""
    root = os.environ.get("AWB_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "awb")
    out = os.path.join(root, f"tiny-qwen2_5-vl-{recipe_hash()}")
    if os.path.isfile(os.path.join(out, "config.json")):
        return out
    os.makedirs(root, exist_ok=True)
    tmp = f"{out}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    build(tmp)
    try:
        os.rename(tmp, out)
    except OSError:  # another process finished the same build first: its folder is the same recipe
        shutil.rmtree(tmp, ignore_errors=True)
        if not os.path.isfile(os.path.join(out, "config.json")):
            raise
    return out


if __name__ == "__main__":
    if "--cached" in sys.argv:
        sys.stdout = sys.stderr  # build() reports on stdout: only the folder goes there
        path = cached()
        sys.stdout = sys.__stdout__
        print(path)
        sys.exit(0)
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tiny-qwen2_5-vl"
    build(out_dir)
    if "--check" in sys.argv:
        check(out_dir, "cuda:0" if "--cuda" in sys.argv else "cpu")
