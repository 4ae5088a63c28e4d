import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CORPUS_FILE, tinyVlmCorpus } from '../../scripts/tiny-vlm-corpus.js';

/** The tiny VLM's tokenizer corpus is committed (make_tiny_vlm.py reads it, and its hash names the cached build): it must be what the script writes from today's SimDroid texts and formats. */
describe('tiny VLM tokenizer corpus', () => {
  it('the committed file is what scripts/tiny-vlm-corpus.ts generates now, and stays small', async () => {
    const committed = readFileSync(CORPUS_FILE, 'utf8');
    const now = await tinyVlmCorpus();
    const a = committed.split('\n');
    const b = now.split('\n');
    const first = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => i).find((i) => a[i] !== b[i]);
    expect(first, `line ${(first ?? 0) + 1} differs (${JSON.stringify(a[first ?? 0])} vs ${JSON.stringify(b[first ?? 0])}): run node --import tsx scripts/tiny-vlm-corpus.ts`).toBeUndefined();
    // ~2.2 KB per template (164 since issue 34): a bound that grows with the suite, not with a runaway generator.
    expect(Buffer.byteLength(committed)).toBeLessThan(450_000);
    // Every line is one JSON string: texts keep their newlines; the chat's blank lines reach the tokenizer.
    const texts = a.filter(Boolean).map((l) => JSON.parse(l) as unknown);
    expect(texts.every((t) => typeof t === 'string')).toBe(true);
    expect(texts.some((t) => (t as string).includes('\n\n'))).toBe(true);
  }, 60_000);
});
