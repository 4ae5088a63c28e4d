import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { WorkbenchError } from '../../util/errors.js';

/**
 * BERT's uncased WordPiece tokenizer (Devlin et al. 2019; Hugging Face `tokenizers`' BertNormalizer +
 * BertPreTokenizer + WordPiece, the tokenizer.json of all-MiniLM-L6-v2), with each token's character span in the
 * original text, so a copied span of tokens gives back the exact text it came from (case and accents kept).
 *
 *   normalise  drop control characters, map whitespace to ' ', put spaces around CJK ideographs, lower-case and
 *              strip accents (NFD, combining marks removed: `strip_accents` unset follows `lowercase`)
 *   split      on whitespace, and every punctuation character is a word of its own
 *   wordpiece  greedy longest match first inside each word, continuations prefixed '##'; a word with no match
 *              (or longer than max_input_chars_per_word) is one [UNK]
 *
 * test/policy/transformer-wordpiece.test.ts checks it token for token against the `tokenizers` package.
 */
export interface WordPieceToken {
  id: number;
  /** The vocabulary entry ("##ing" for a continuation). */
  piece: string;
  /** Character span [start, end) in the original text. */
  start: number;
  end: number;
  /** True for a continuation piece (not the start of a word). */
  continuation: boolean;
}

const TokenizerJson = z.object({
  normalizer: z.object({ type: z.literal('BertNormalizer'), lowercase: z.boolean() }).passthrough(),
  pre_tokenizer: z.object({ type: z.literal('BertPreTokenizer') }).passthrough(),
  model: z.object({
    type: z.literal('WordPiece'),
    unk_token: z.string(),
    continuing_subword_prefix: z.string(),
    max_input_chars_per_word: z.int().positive(),
    vocab: z.record(z.string(), z.int().nonnegative()),
  }).passthrough(),
}).passthrough();

export class TokenizerFileError extends WorkbenchError {
  override name = 'TokenizerFileError';
  constructor(readonly path: string, readonly problem: string) {
    super(`Bad tokenizer file ${path}: ${problem}`);
  }
}

/** BERT's punctuation: the ASCII non-letter, non-digit, non-space ranges, and Unicode P* categories. */
function isPunctuation(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return /\p{P}/u.test(ch);
}

function isCjk(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x20000 && c <= 0x2a6df) || (c >= 0x2a700 && c <= 0x2b73f)
    || (c >= 0x2b740 && c <= 0x2b81f) || (c >= 0x2b820 && c <= 0x2ceaf) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x2f800 && c <= 0x2fa1f);
}

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || /\p{Zs}/u.test(ch);
const isControl = (ch: string) => ch !== '\t' && ch !== '\n' && ch !== '\r' && /\p{Cc}|\p{Cf}/u.test(ch);

export class WordPieceTokenizer {
  readonly vocabSize: number;
  readonly unkId: number;
  readonly padId: number;
  private readonly pieces: string[] = [];

  constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly opts: { lowercase: boolean; unk: string; prefix: string; maxWordChars: number },
  ) {
    for (const [piece, id] of vocab) this.pieces[id] = piece;
    this.vocabSize = this.pieces.length;
    const unk = vocab.get(opts.unk);
    if (unk === undefined) throw new TokenizerFileError('(vocabulary)', `the unknown token ${opts.unk} is not in the vocabulary`);
    this.unkId = unk;
    this.padId = vocab.get('[PAD]') ?? 0;
  }

  static fromJson(text: string, path: string): WordPieceTokenizer {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new TokenizerFileError(path, `not JSON (${(e as Error).message})`);
    }
    const r = TokenizerJson.safeParse(raw);
    if (!r.success) throw new TokenizerFileError(path, `not a BERT WordPiece tokenizer.json (${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
    const m = r.data.model;
    return new WordPieceTokenizer(new Map(Object.entries(m.vocab)), {
      lowercase: r.data.normalizer.lowercase, unk: m.unk_token, prefix: m.continuing_subword_prefix, maxWordChars: m.max_input_chars_per_word,
    });
  }

  static load(path: string): WordPieceTokenizer {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new TokenizerFileError(path, `cannot read (${(e as Error).message})`);
    }
    return WordPieceTokenizer.fromJson(text, path);
  }

  piece(id: number): string {
    return this.pieces[id] ?? this.opts.unk;
  }

  /** The words of `text` after normalisation, each with the original span it covers. */
  private words(text: string): { word: string; start: number; end: number }[] {
    const out: { word: string; start: number; end: number }[] = [];
    let word = '';
    let start = -1;
    let end = -1;
    const flush = () => {
      if (word) out.push({ word, start, end });
      word = '';
      start = -1;
    };
    let i = 0;
    for (const ch of text) {
      const at = i;
      i += ch.length;
      const c = ch.codePointAt(0)!;
      if (c === 0 || c === 0xfffd || isControl(ch)) continue;
      if (isWhitespace(ch)) {
        flush();
        continue;
      }
      let norm = ch;
      if (this.opts.lowercase) norm = ch.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
      if (!norm) continue;
      if (isPunctuation(ch) || isCjk(c)) {
        flush();
        out.push({ word: norm, start: at, end: i });
        continue;
      }
      if (start < 0) start = at;
      word += norm;
      end = i;
    }
    flush();
    return out;
  }

  /** The tokens of `text`, at most `max` (the rest dropped), each with its span in `text`. */
  tokenize(text: string, max = Infinity): WordPieceToken[] {
    const out: WordPieceToken[] = [];
    for (const w of this.words(text)) {
      if (out.length >= max) break;
      const chars = [...w.word];
      if (chars.length > this.opts.maxWordChars) {
        out.push({ id: this.unkId, piece: this.opts.unk, start: w.start, end: w.end, continuation: false });
        continue;
      }
      const pieces: { id: number; piece: string }[] = [];
      let s = 0;
      let bad = false;
      while (s < chars.length) {
        let e = chars.length;
        let found: { id: number; piece: string } | null = null;
        while (s < e) {
          const sub = (s > 0 ? this.opts.prefix : '') + chars.slice(s, e).join('');
          const id = this.vocab.get(sub);
          if (id !== undefined) {
            found = { id, piece: sub };
            break;
          }
          e--;
        }
        if (!found) {
          bad = true;
          break;
        }
        pieces.push(found);
        s = e;
      }
      if (bad) {
        out.push({ id: this.unkId, piece: this.opts.unk, start: w.start, end: w.end, continuation: false });
        continue;
      }
      // Pieces split a word's normalised characters; spans are given to whole words (a piece's own span inside a
      // word only matters for a copy that starts or ends mid-word, which the policy never makes).
      pieces.forEach((p, k) => out.push({ ...p, start: w.start, end: w.end, continuation: k > 0 }));
    }
    return out.slice(0, max);
  }
}
