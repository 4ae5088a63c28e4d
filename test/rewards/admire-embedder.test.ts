import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, EmbeddingNotPreparedError, hashedEmbedder, needsPrepare } from '../../core/rewards/admire/embedder.js';
import {
  EmbeddingModelFilesError, EmbeddingModelLoadError, EmbeddingModelNotFoundError, EmbeddingOutputShapeError,
  meanPoolNormalize, TransformersEmbedder,
} from '../../core/rewards/admire/transformers-embedder.js';
import { writeTinyModel } from '../helpers/tiny-onnx.js';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('meanPoolNormalize', () => {
  it('averages the unmasked token states and scales to unit length, ignoring padding', () => {
    // batch 2, sequence 3, hidden 2; the second text has one padded position holding garbage
    const data = Float32Array.from([1, 0, 3, 4, 5, 0, /* b=1 */ 0, 2, 0, 4, 100, 100]);
    const [a, b] = meanPoolNormalize({ data, dims: [2, 3, 2], mask: [1n, 1n, 1n, 1n, 1n, 0n], maskDims: [2, 3] });
    // a: mean (3, 4/3) → normalised
    const m = Math.hypot(3, 4 / 3);
    expect([...a!]).toEqual([expect.closeTo(3 / m, 6), expect.closeTo(4 / 3 / m, 6)]);
    expect([...b!]).toEqual([0, 1]);
  });

  it('leaves a text whose states are all zero at zero rather than dividing by zero', () => {
    const [v] = meanPoolNormalize({ data: new Float32Array(4), dims: [1, 2, 2], mask: [1, 1], maskDims: [1, 2] });
    expect([...v!]).toEqual([0, 0]);
  });
});

describe('TransformersEmbedder on a tiny BERT-shaped model built by the test', () => {
  const root = mkdtempSync(join(tmpdir(), 'awb-emb-'));
  let e: TransformersEmbedder;
  beforeAll(async () => {
    e = await TransformersEmbedder.load({ path: writeTinyModel(join(root, 'tiny'), { dim: 32 }), batchSize: 2 });
  });
  afterAll(async () => {
    await e.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('loads from the folder: the width is config.json hidden_size and the id names the folder', () => {
    expect(e.dim).toBe(32);
    expect(e.id).toBe('transformers/tiny/fp32/mean');
    expect(needsPrepare(e)).toBe(true);
    expect(needsPrepare(hashedEmbedder())).toBe(false);
  });

  it('gives unit vectors, the same vector for the same text whatever it was batched with', async () => {
    const alone = (await e.embedMany(['Open Contacts']))[0]!;
    const other = await TransformersEmbedder.load({ path: join(root, 'tiny'), batchSize: 8 });
    try {
      // batched with longer texts, so this one is padded: the mask must keep the padding out
      const [, , padded] = await other.embedMany(['Tap "Add to favourites" in Contacts', 'Scroll down in Contacts', 'Open Contacts']);
      expect(padded!.length).toBe(32);
      expect(norm(padded!)).toBeCloseTo(1, 5);
      expect(cosine(alone, padded!)).toBeCloseTo(1, 5);
    } finally {
      await other.dispose();
    }
  });

  it('puts texts that share words closer than texts that do not', async () => {
    const texts = ['Tap "Save" in Contacts', 'Tap "Save" in Settings', 'Turn wifi off', 'Tap "Search" in Contacts'];
    const [a, b, c, d] = await e.embedMany(texts);
    expect(cosine(a!, b!)).toBeGreaterThan(0.75);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
    // "save" and "search" are different words, not letters of one: a differs from d more than from b
    expect(cosine(a!, d!)).toBeLessThan(cosine(a!, b!));
    expect(cosine(a!, d!)).toBeGreaterThan(cosine(a!, c!));
  });

  it('embeds only what was prepared, caching each distinct text once', async () => {
    expect(() => e.embed('Open Clock')).toThrow(EmbeddingNotPreparedError);
    expect(() => e.embed('Open Clock')).toThrow(/transformers\/tiny\/fp32\/mean: no embedding for "Open Clock"/);
    const before = e.cached;
    await e.prepare(['Open Clock', 'Open Clock', 'Open Clock alarm']);
    expect(e.cached).toBe(before + 2);
    const v = e.embed('Open Clock');
    await e.prepare(['Open Clock']);
    expect(e.embed('Open Clock')).toBe(v); // a cache hit, not a second inference
  });

  it('stops between batches when the signal aborts', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('stop'));
    await expect(e.prepare(['back home', 'press button', 'new contact'], ctl.signal)).rejects.toThrow('stop');
    expect(() => e.embed('back home')).toThrow(EmbeddingNotPreparedError);
  });

  it('keeps at most maxCached vectors, evicting the least recently prepared', async () => {
    const small = await TransformersEmbedder.load({ path: join(root, 'tiny'), maxCached: 3 });
    try {
      await small.prepare(['a', 'b', 'c']);
      await small.prepare(['a', 'd']); // touches a; b is the oldest now
      expect(small.cached).toBe(3);
      expect(() => small.embed('b')).toThrow(EmbeddingNotPreparedError);
      expect(small.embed('a')).toHaveLength(32);
      expect(small.embed('d')).toHaveLength(32);
    } finally {
      await small.dispose();
    }
  });
});

describe('TransformersEmbedder refuses a bad model folder with a named error carrying the path', () => {
  const root = mkdtempSync(join(tmpdir(), 'awb-emb-bad-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a missing folder', () => {
    const p = join(root, 'nowhere');
    expect(() => new TransformersEmbedder({ path: p })).toThrow(EmbeddingModelNotFoundError);
    expect(() => new TransformersEmbedder({ path: p })).toThrow(p);
  });

  it('missing files, all of them named (and the dtype picks the ONNX file)', () => {
    const p = writeTinyModel(join(root, 'partial'));
    unlinkSync(join(p, 'tokenizer.json'));
    unlinkSync(join(p, 'onnx', 'model.onnx'));
    const err = (() => {
      try {
        new TransformersEmbedder({ path: p });
      } catch (x) {
        return x;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(EmbeddingModelFilesError);
    expect((err as EmbeddingModelFilesError).missing).toEqual(['tokenizer.json', 'onnx/model.onnx']);
    expect((err as Error).message).toContain(p);
    const q = writeTinyModel(join(root, 'fp32-only'));
    expect(() => new TransformersEmbedder({ path: q, dtype: 'q8' })).toThrow(/lacks onnx\/model_quantized\.onnx/);
  });

  it('a model file that is not ONNX fails to load, and keeps failing the same way', async () => {
    const p = writeTinyModel(join(root, 'garbage'));
    writeFileSync(join(p, 'onnx', 'model.onnx'), 'this is not a protobuf');
    const e = new TransformersEmbedder({ path: p });
    await expect(e.prepare(['Open Contacts'])).rejects.toThrow(EmbeddingModelLoadError);
    await expect(e.prepare(['Open Contacts'])).rejects.toThrow(`The embedding model at ${p} failed to load`);
  });

  it('a config.json that is not JSON', () => {
    const p = writeTinyModel(join(root, 'badconfig'));
    writeFileSync(join(p, 'config.json'), '{ nope');
    expect(() => new TransformersEmbedder({ path: p })).toThrow(EmbeddingModelLoadError);
  });

  it('a graph whose output is already pooled ([batch, hidden]) is the wrong shape', async () => {
    const p = writeTinyModel(join(root, 'pooled'), { output: 'pooled' });
    await expect(TransformersEmbedder.load({ path: p })).rejects.toThrow(EmbeddingOutputShapeError);
    await expect(TransformersEmbedder.load({ path: p })).rejects.toThrow(/shape \[1, 16\], expected \[batch, sequence, hidden\]/);
  });

  it('a graph whose width disagrees with config.json hidden_size', async () => {
    const p = writeTinyModel(join(root, 'wide'), { dim: 16, configHiddenSize: 384 });
    await expect(TransformersEmbedder.load({ path: p })).rejects.toThrow(/vectors of 16 dimensions, but config.json says hidden_size 384/);
  });
});
