"""A small BERT-style WordPiece tokenizer.json trained with Hugging Face `tokenizers` on a text corpus (one text per
line on stdin): the same normaliser (lower-case, accents stripped), pre-tokenizer and WordPiece model as
all-MiniLM-L6-v2's, with a vocabulary small enough for tests. The tests' tokenizer is
test/policy/transformer-fixtures/tokenizer.json, made from the task suite's texts:

    node --import tsx test/policy/transformer-corpus.ts | python resources/trainer/tools/make_wordpiece.py --vocab 2000 --out FILE
"""

from __future__ import annotations

import argparse
import sys

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers, decoders

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=2000)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    texts = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", continuing_subword_prefix="##", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    trainer = trainers.WordPieceTrainer(vocab_size=a.vocab, special_tokens=SPECIALS, continuing_subword_prefix="##", show_progress=False)
    tok.train_from_iterator(texts, trainer)
    tok.save(a.out)
    print(f"{a.out}: {tok.get_vocab_size()} tokens from {len(texts)} texts", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
