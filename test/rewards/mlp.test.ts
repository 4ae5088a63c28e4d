import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/util/rng.js';
import { bceWithLogit, mlpParamCount, MlpShapeError, sigmoid, SigmoidMlp } from '../../core/rewards/mlp.js';
import { deserializeProgressModel } from '../../core/rewards/progrm/checkpoint.js';
import { createProgressModel, predictProgress } from '../../core/rewards/progrm/model.js';
import { BuiltinJudge, createJudgeModel, deserializeJudge } from '../../core/rewards/shepherd/builtin.js';
import type { JudgeInput } from '../../core/rewards/shepherd/judge.js';
import { episode } from './progrm-fixtures.js';

const bce = (net: SigmoidMlp, x: Float32Array, y: number, r = 0) => bceWithLogit(net.logit(x, r), y);

describe('sigmoid MLP', () => {
  // hidden 0 is the judge's logistic regression; soft targets are ProgRM's progress labels.
  for (const [hidden, y] of [[0, 1], [0, 0.37], [5, 0], [5, 0.37]] as const) {
    it(`backward matches finite differences of the BCE (hidden ${hidden}, y ${y}, row 1 of a matrix)`, () => {
      const rng = createRng(`mlp-fd/${hidden}/${y}`);
      const net = SigmoidMlp.init({ input: 7, hidden }, rng);
      for (let i = 0; i < net.params.length; i++) net.params[i] = net.params[i]! + 0.5 * (rng.next() - 0.5);
      const x = Float32Array.from({ length: 14 }, () => rng.next() * 2 - 1);
      net.zeroGrad();
      const loss = net.accumulate(x, y, 2, 1);
      const p = net.predict(x, 1);
      expect(loss).toBeCloseTo(-y * Math.log(p) - (1 - y) * Math.log(1 - p), 10);
      const h = 1e-2;
      let checked = 0;
      for (let i = 0; i < net.params.length; i++) {
        const keep = net.params[i]!;
        net.params[i] = keep + h;
        const up = bce(net, x, y, 1);
        net.params[i] = keep - h;
        const down = bce(net, x, y, 1);
        net.params[i] = keep;
        const numeric = (2 * (up - down)) / (2 * h); // scale 2
        expect(net.grads[i]!).toBeCloseTo(numeric, 3);
        if (Math.abs(numeric) > 1e-3) checked++;
      }
      expect(checked).toBeGreaterThan(hidden === 0 ? 5 : 20);
    });
  }

  it('accumulates: two calls add their gradients, zeroGrad clears them', () => {
    const net = SigmoidMlp.init({ input: 3, hidden: 2 }, createRng('acc'));
    const x = Float32Array.from([0.5, -0.2, 0.9]);
    net.zeroGrad();
    net.accumulate(x, 1);
    const once = net.grads.slice();
    net.accumulate(x, 1);
    net.grads.forEach((g, i) => expect(g).toBeCloseTo(2 * once[i]!, 6));
    net.zeroGrad();
    expect(net.grads.every((g) => g === 0)).toBe(true);
  });

  it('computes σ and the BCE stably at extreme logits', () => {
    expect(sigmoid(800)).toBe(1);
    expect(sigmoid(-800)).toBe(0);
    expect(bceWithLogit(800, 1)).toBe(0);
    expect(bceWithLogit(-800, 1)).toBeCloseTo(800, 9);
    expect(Number.isFinite(bceWithLogit(-800, 0.5))).toBe(true);
  });

  it('refuses bad dims, a parameter vector of the wrong size and features of the wrong width, naming the value', () => {
    expect(mlpParamCount({ input: 3, hidden: 0 })).toBe(4);
    expect(mlpParamCount({ input: 3, hidden: 2 })).toBe(11);
    expect(() => new SigmoidMlp({ input: 3, hidden: 2 }, new Float32Array(5))).toThrow(/Expected 11 parameters.*got 5/);
    expect(() => new SigmoidMlp({ input: 0, hidden: 2 })).toThrow(MlpShapeError);
    expect(() => new SigmoidMlp({ input: 3, hidden: -1 })).toThrow(/Bad network dims.*-1/);
    const net = SigmoidMlp.init({ input: 3, hidden: 2 }, createRng(1));
    expect(() => net.predict(new Float32Array(4))).toThrow(/rows of length 3.*got 4/);
    expect(() => net.predict(new Float32Array(6), 2)).toThrow(MlpShapeError);
    expect(net.predict(new Float32Array(6), 1)).toBeCloseTo(net.predict(new Float32Array(3)), 12);
  });
});

/** Checkpoints written by the two networks this module replaced (commit 3c5af0e), with their outputs then. */
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'reward-models', name), 'utf8');

describe('checkpoints written before the shared MLP', () => {
  it('a ProgRM checkpoint loads and predicts what it predicted then; the same seed initialises the same parameters', () => {
    const { model, meta } = deserializeProgressModel(fixture('progrm-v1.json'));
    const ep = episode(['tap:Add', 'type:Name', 'tap:Save'], { screens: ['List', 'Editor', 'List'] });
    const then = meta.progress as number[];
    expect(then).toHaveLength(4);
    predictProgress(model, ep).forEach((p, i) => expect(p).toBe(then[i]));
    const fresh = createProgressModel(createRng('fixture/progrm'), { encoder: { kind: 'hashed-ngram', dim: 8, charN: 3 }, hidden: 4 });
    expect(fresh.net.params).toEqual(model.net.params);
  });

  for (const hidden of [0, 3]) {
    it(`a judge checkpoint (hidden ${hidden}) loads and gives the same P(correct)`, () => {
      const { model, meta } = deserializeJudge(fixture(`judge-h${hidden}-v1.json`));
      expect(model.net.dims.hidden).toBe(hidden);
      expect(new BuiltinJudge(model).probability(meta.input as JudgeInput)).toBe(meta.p);
      if (hidden > 0) {
        const fresh = createJudgeModel(createRng(`fixture/judge/${hidden}`), { kind: 'hashed-ngram', dim: 8, charN: 3 }, hidden);
        expect(fresh.net.params).toEqual(model.net.params);
      }
    });
  }
});
