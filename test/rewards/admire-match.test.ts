import { describe, expect, it } from 'vitest';
import { admireWeight, DEFAULT_ADMIRE_CONFIG, parseAdmireConfig, type AdmireConfig } from '../../core/rewards/admire/config.js';
import { cosine, EmbeddingDimensionError, hashedEmbedder } from '../../core/rewards/admire/embedder.js';
import { matchMilestones, milestoneRewards } from '../../core/rewards/admire/match.js';

/**
 * Vectors with exact cosines: milestone i is the unit vector e_i; a step aimed at milestone p with
 * similarity s is s·e_p + √(1−s²)·e_spare (a dimension no milestone uses).
 */
const DIM = 8;
const SPARE = DIM - 1;
const unit = (i: number) => Float32Array.from({ length: DIM }, (_, j) => (j === i ? 1 : 0));
const toward = (p: number, s: number) => Float32Array.from({ length: DIM }, (_, j) => (j === p ? s : j === SPARE ? Math.sqrt(1 - s * s) : 0));
const cfg = (over: Partial<AdmireConfig> = {}): AdmireConfig => ({ ...DEFAULT_ADMIRE_CONFIG, ...over });
const ms3 = [unit(0), unit(1), unit(2)];

describe('matchMilestones', () => {
  it('hits milestones in order with a pointer, strictly above δ', () => {
    // step 0 looks like m2 (not the next one), step 1's cosine to m1 is exactly 1/2 = δ: neither hits
    const half = Float32Array.from({ length: DIM }, (_, j) => (j === 0 || j >= DIM - 3 ? 1 : 0));
    const m = matchMilestones([toward(1, 0.99), half, toward(0, 0.8), toward(1, 0.9)], ms3, cfg({ delta: 0.5 }));
    expect(m.similarity[1]).toBe(0.5);
    expect(m.hit).toEqual([false, false, true, true]);
    expect(m.compared).toEqual([0, 0, 0, 1]);
    expect(m.kAt).toEqual([0, 0, 1, 2]);
    expect(m.kFinal).toBe(2);
    expect(m.similarity[0]).toBeCloseTo(0, 6);
  });

  it("after the last milestone, 'stop' compares nothing more and 'rehit' can hit it again", () => {
    const steps = [toward(0, 0.9), toward(1, 0.9), toward(2, 0.9), toward(2, 0.95)];
    const stop = matchMilestones(steps, ms3, cfg({ afterLast: 'stop' }));
    expect(stop.hit).toEqual([true, true, true, false]);
    expect(stop.compared[3]).toBeNull();
    const rehit = matchMilestones(steps, ms3, cfg({ afterLast: 'rehit' }));
    expect(rehit.hit).toEqual([true, true, true, true]);
    expect(rehit.kFinal).toBe(4);
  });

  it('does not compare a step without a description, and K = 0 never hits', () => {
    const m = matchMilestones([null, toward(0, 0.9)], ms3, cfg());
    expect(m.compared).toEqual([null, 0]);
    expect(m.hit).toEqual([false, true]);
    expect(matchMilestones([toward(0, 1)], [], cfg()).hit).toEqual([false]);
  });
});

describe('milestoneRewards (Eq. 10–11) — the digest §2.11 worked example, K = 3, λ = 0.3·0.99', () => {
  const lambda = admireWeight(DEFAULT_ADMIRE_CONFIG, 1);
  const A = matchMilestones([toward(0, 0.5), toward(0, 0.82), toward(1, 0.78), toward(2, 0.9)], ms3, cfg());
  const B = matchMilestones([toward(0, 0.3), toward(0, 0.8), toward(1, 0.2)], ms3, cfg());

  it('success: only hit steps, by their similarity', () => {
    const r = milestoneRewards(A, true, cfg());
    [0, 0.82, 0.78, 0.9].forEach((x, i) => expect(r[i]).toBeCloseTo(x, 5));
    const total = r.map((x) => 1 + lambda * x);
    [1.0, 1.24354, 1.23166, 1.2673].forEach((x, i) => expect(total[i]).toBeCloseTo(x, 4));
  });

  it("failure, 'running' k: k/K so far plus ζ·similarity on the hit", () => {
    const r = milestoneRewards(B, false, cfg({ baseMode: 'running' }));
    [0, 1 / 3 + 0.4, 1 / 3].forEach((x, i) => expect(r[i]).toBeCloseTo(x, 5));
    [0, 0.2178, 0.099].forEach((x, i) => expect(lambda * r[i]!).toBeCloseTo(x, 4));
  });

  it("failure, 'final' k: the episode's k/K on every step", () => {
    const r = milestoneRewards(B, false, cfg({ baseMode: 'final' }));
    [1 / 3, 1 / 3 + 0.4, 1 / 3].forEach((x, i) => expect(r[i]).toBeCloseTo(x, 5));
  });

  it('ablation switches: base on success, no base on failure', () => {
    const withBase = milestoneRewards(A, true, cfg({ baseOnSuccess: true, baseMode: 'final' }));
    expect(withBase[0]).toBeCloseTo(1, 5);
    const noBase = milestoneRewards(B, false, cfg({ baseOnFailure: false }));
    [0, 0.4, 0].forEach((x, i) => expect(noBase[i]).toBeCloseTo(x, 5));
  });

  it('no milestones gives zeros', () => {
    expect(milestoneRewards(matchMilestones([toward(0, 1)], [], cfg()), false, cfg())).toEqual([0]);
  });
});

describe('weights, config and embeddings', () => {
  it('λ(E) = λ0·γ^E decays per iteration; γ = 1 is the no-decay ablation', () => {
    expect(admireWeight(DEFAULT_ADMIRE_CONFIG, 1)).toBeCloseTo(0.297, 6);
    expect(admireWeight(DEFAULT_ADMIRE_CONFIG, 100)).toBeCloseTo(0.3 * 0.99 ** 100, 9);
    expect(admireWeight({ lambda0: 0.3, gamma: 1 }, 150)).toBe(0.3);
  });

  it('the config refuses unknown keys and out-of-range values', () => {
    expect(() => parseAdmireConfig({ delta: 2 })).toThrow();
    expect(() => parseAdmireConfig({ deltaa: 0.7 })).toThrow();
    expect(parseAdmireConfig({ baseMode: 'final' }).baseMode).toBe('final');
  });

  it('cosine of the built-in embedder: identical text 1, unrelated text low, mismatched sizes a named error', () => {
    const e = hashedEmbedder();
    expect(cosine(e.embed('Tap "Save" in Contacts'), e.embed('Tap "Save" in Contacts'))).toBeCloseTo(1, 6);
    expect(cosine(e.embed('Open Clock'), e.embed('Declare the task complete'))).toBeLessThan(0.3);
    expect(cosine(e.embed(''), e.embed('x'))).toBe(0);
    expect(() => cosine(new Float32Array(2), new Float32Array(3))).toThrow(EmbeddingDimensionError);
  });
});
