/**
 * A small seeded pseudo-random generator. Everything random in core and in SimDroid takes one of
 * these as an argument: nothing reads Math.random(), so a seed reproduces an episode exactly.
 *
 * Algorithm: sfc32 (Chris Doty-Humphrey's Small Fast Counter), seeded through a 32-bit FNV-1a hash
 * of the seed's decimal text so that nearby integer seeds give unrelated streams.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `count` distinct elements, in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
  /** True with probability p. */
  chance(p: number): boolean;
  /**
   * An independent generator named by this generator's seed and a label. It does not consume this
   * generator's stream, so adding or removing a fork elsewhere never shifts another one's values;
   * the same label always gives the same stream.
   */
  fork(label: string): Rng;
}

export class SeedError extends Error {
  override name = 'SeedError';
  constructor(readonly seed: unknown) {
    super(`Seed must be a non-negative safe integer, got ${JSON.stringify(seed)}`);
  }
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function assertSeed(seed: unknown): asserts seed is number {
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) throw new SeedError(seed);
}

export function createRng(seed: number | string): Rng {
  if (typeof seed === 'number') assertSeed(seed);
  const text = String(seed);
  let a = fnv1a(text);
  let b = fnv1a(`b:${text}`);
  let c = fnv1a(`c:${text}`);
  let d = 1;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Discard the first outputs: sfc32 needs a few rounds to mix a weak seed.
  for (let i = 0; i < 12; i++) next();
  const rng: Rng = {
    next,
    int(min, max) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
        throw new RangeError(`Rng.int needs integers min <= max, got ${min}, ${max}`);
      }
      return min + Math.floor(next() * (max - min + 1));
    },
    pick(items) {
      if (items.length === 0) throw new RangeError('Rng.pick on an empty array');
      return items[Math.floor(next() * items.length)]!;
    },
    shuffle(items) {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    sample(items, count) {
      if (count > items.length) throw new RangeError(`Rng.sample: ${count} of ${items.length} items`);
      return rng.shuffle(items).slice(0, count);
    },
    chance(p) {
      return next() < p;
    },
    fork(label) {
      return createRng(`${text}/${label}`);
    },
  };
  return rng;
}
