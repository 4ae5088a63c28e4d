import { join } from 'node:path';
import { writeBundle, type Bundle } from '../../core/remote-jobs/bundle.js';
import { encodeFeatures, type BundleStep } from '../../core/remote-jobs/steps.js';
import { TrainerClient } from '../../core/remote-jobs/client.js';
import { createModel, type PolicyModel } from '../../core/policy/builtin.js';
import { serializeCheckpoint } from '../../core/policy/checkpoint.js';
import { createRng } from '../../core/util/rng.js';

export const TOKEN = 'test-token-5f1c0ffee';

export { scratch } from '../helpers/scratch.js';

/**
 * Synthetic builtin-policy steps (features drawn from a seeded RNG, the chosen index fixed per step):
 * enough for a trainer to fit, with no SimDroid rollout. `n` candidates of the model's feature width.
 */
export function syntheticSteps(model: PolicyModel, count: number, seed: number, grpo = false): BundleStep[] {
  const rng = createRng(`jobs-test/${seed}`);
  const F = model.net.dims.input;
  return Array.from({ length: count }, (_, i) => {
    const n = 3 + (i % 3);
    const f = new Float32Array(n * F);
    for (let k = 0; k < f.length; k++) f[k] = rng.next() * 2 - 1;
    const chosen = i % n;
    return {
      episode: `synthetic/${Math.floor(i / 4)}`, step: i % 4, n, features: encodeFeatures(f), chosen,
      logProb: model.net.logProbs(f, n, 1)[chosen]!, temperature: 1, advantage: grpo ? (i % 2 ? 1 : -1) : null, logProbRef: null,
    };
  });
}

export function syntheticBundle(dir: string, opts: { kind?: 'builtin-sft' | 'builtin-grpo'; steps?: number; seed?: number } = {}): { bundle: Bundle; model: PolicyModel; init: string } {
  const model = createModel(createRng(`jobs-test/model/${opts.seed ?? 0}`));
  const init = serializeCheckpoint(model, { test: true });
  const kind = opts.kind ?? 'builtin-sft';
  const bundle = writeBundle({
    kind, file: join(dir, `bundle-${kind}-${opts.seed ?? 0}.tar`), createdAt: 1_700_000_000_000,
    steps: syntheticSteps(model, opts.steps ?? 40, opts.seed ?? 0, kind === 'builtin-grpo'), initPolicy: init,
  });
  return { bundle, model, init };
}

/** A client with fast retries (tests must not wait seconds on backoff). */
export function fastClient(baseUrl: string, extra: Partial<ConstructorParameters<typeof TrainerClient>[0]> = {}): TrainerClient {
  return new TrainerClient({ baseUrl, token: TOKEN, timeoutMs: 5000, retries: 4, backoffMs: 5, maxBackoffMs: 20, ...extra });
}
