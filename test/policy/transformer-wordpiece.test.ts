import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenizerFileError, WordPieceTokenizer } from '../../core/policy/transformer/wordpiece.js';
import { requirePython } from '../python-env.js';
import { corpusTexts } from './transformer-corpus.js';

const TOKENIZER = join(import.meta.dirname, 'transformer-fixtures', 'tokenizer.json');

// Hugging Face `tokenizers` (the real library) on the same file: ids, and each word's span in UTF-16 code units.
const HF = `
import json, sys
from tokenizers import Tokenizer
tok = Tokenizer.from_file(sys.argv[1])
tok.no_truncation(); tok.no_padding()
out = []
for text in json.load(sys.stdin):
    enc = tok.encode(text, add_special_tokens=False)
    u16 = lambda i: len(text[:i].encode("utf-16-le")) // 2
    words = {}
    for w, (s, e) in zip(enc.word_ids, enc.offsets):
        a, b = words.get(w, (s, e))
        words[w] = (min(a, s), max(b, e))
    out.append([[i, u16(words[w][0]), u16(words[w][1])] for i, w in zip(enc.ids, enc.word_ids)])
print(json.dumps(out))
`;

const ODD = [
  'Café au lait at 11:58 PM — naïve résumé', 'zoe.martin@gmail.com, +1 (415) 555-0134', '東京 and 北京 trip', 'Smile 😀 please',
  'tab\there\u0000 and\u200b zero-width', `${'a'.repeat(120)} long`, '  spaced   out  ', '', 'UPPER lower MiXeD', 'Ünïcödé Ångström',
  'agenda_11_4.md', 'Set 45% brightness!!!', "Priya's O'Brien", '$1,308.98 total', 'ﬁnance ligature', 'İstanbul',
];

describe('WordPieceTokenizer', () => {
  it('gives the ids and word spans of Hugging Face tokenizers on the task suite\'s texts and odd inputs', () => {
    const texts = [...corpusTexts().filter((_, i) => i % 3 === 0), ...ODD];
    const r = spawnSync(requirePython(), ['-c', HF, TOKENIZER], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.status, r.stderr).toBe(0);
    const want = JSON.parse(r.stdout) as number[][][];
    const tok = WordPieceTokenizer.load(TOKENIZER);
    let tokens = 0;
    texts.forEach((text, i) => {
      const got = tok.tokenize(text).map((t) => [t.id, t.start, t.end]);
      expect({ text, got }).toEqual({ text, got: want[i] });
      tokens += got.length;
    });
    expect(tokens).toBeGreaterThan(3000);
  });

  it('keeps the original text under each span, marks continuations and truncates to max', () => {
    const tok = WordPieceTokenizer.load(TOKENIZER);
    const text = 'Add Grace Bauer to CONTACTS';
    const toks = tok.tokenize(text);
    expect(toks.filter((t) => !t.continuation).map((t) => text.slice(t.start, t.end))).toEqual(['Add', 'Grace', 'Bauer', 'to', 'CONTACTS']);
    expect(toks.every((t, i) => i === 0 || t.continuation === (t.start === toks[i - 1]!.start))).toBe(true);
    expect(tok.tokenize(text, 2)).toHaveLength(2);
  });

  it('refuses a file that is not a BERT WordPiece tokenizer, naming it', () => {
    expect(() => WordPieceTokenizer.fromJson('{"model": {"type": "BPE"}}', 'x.json')).toThrow(TokenizerFileError);
    expect(() => WordPieceTokenizer.fromJson('not json', 'y.json')).toThrow(/y\.json: not JSON/);
  });
});
