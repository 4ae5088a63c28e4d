import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { METRIC } from '../rl/grpo-loop.js';
import { TransformerAdaptConfigSchema, adaptTransformer } from '../rl/transformer-adapt.js';
import { dataDir } from '../util/data-dir.js';
import { issueLines } from '../util/zod-issues.js';
import { UsageError } from './args.js';
import { pct } from './format.js';
import type { Io } from './main.js';

/** `awb adapt --policy MODEL_DIR`: the transformer policy's per-app adapter (core/rl/transformer-adapt.ts), GRPO only. */
export async function adaptTransformerCommand(v: {
  app: string; policy: string; shots?: number; rank?: number; iterations?: number; seed?: number; method?: string; 'eval-seeds'?: number[];
  config?: string; out?: string; json?: boolean; 'from-episodes'?: number[];
}, io: Io): Promise<number> {
  if (v.method && v.method !== 'grpo') throw new UsageError(`--method ${v.method}: the transformer policy adapts with GRPO only (the paper's recipe)`);
  if (v['from-episodes']) throw new UsageError('--from-episodes: the transformer policy adapts with GRPO only');
  let input: Record<string, unknown> = {};
  if (v.config) {
    try {
      input = JSON.parse(readFileSync(v.config, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`--config ${v.config}: ${(e as Error).message}`, { cause: e });
    }
  }
  const grpo = { ...(input.grpo as Record<string, unknown> | undefined), ...(v.iterations ? { iterations: v.iterations } : {}) };
  const r = TransformerAdaptConfigSchema.safeParse({ ...input, grpo, ...(v.shots ? { shots: v.shots } : {}), ...(v.rank ? { rank: v.rank } : {}), ...(v.seed !== undefined ? { seed: v.seed } : {}) });
  if (!r.success) throw new UsageError(`adapt config: ${issueLines(r.error.issues, { root: '(root)' }).join('; ')}`);
  const outDir = resolve(v.out ?? join(dataDir(), 'adapters', 'transformer', `${v.app.replace(/\W+/g, '-').toLowerCase()}-${Date.now()}`));
  const res = await adaptTransformer({
    base: resolve(v.policy), app: v.app, outDir, config: r.data, ...(v['eval-seeds'] ? { evalSeeds: v['eval-seeds'] } : {}),
    onPhase: (p) => { if (!v.json) io.err(`${p}…`); }, log: (m) => io.err(m),
    onIteration: (m) => io.out(v.json ? JSON.stringify({ type: 'grpo', ...m })
      : `iter ${m.iteration}  success ${m.metrics[METRIC.successRate]!.toFixed(2)}  zero-std ${m.metrics[METRIC.zeroStdFrac]!.toFixed(2)}  ${m.metrics[METRIC.iterationS]!.toFixed(1)} s`),
  });
  const report = {
    type: 'report', policy: 'transformer', base: resolve(v.policy), app: res.target.app, regime: res.target.regime, method: 'grpo', shots: res.shots,
    before: res.before, after: res.after, delta: res.delta, perTemplate: res.perTemplate, adapter: res.adapter, parameters: res.parameters, wallS: res.wallS, config: r.data,
  };
  // With no signal nothing stops it, so both evaluations ran.
  io.out(v.json ? JSON.stringify(report)
    : `${res.target.app}: ${pct(res.before!.successRate)} → ${pct(res.after!.successRate)} (Δ ${(100 * res.delta!).toFixed(1)} points); adapter ${res.adapter}`);
  return 0;
}
