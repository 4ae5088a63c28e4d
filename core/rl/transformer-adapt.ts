import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { Device } from '../device/device.js';
import { TransformerModel } from '../policy/transformer/model.js';
import { TransformerPolicy } from '../policy/transformer/policy.js';
import type { TrainingStep } from '../policy/transformer/records.js';
import type { RolloutJob } from '../rollout/rollouts.js';
import { RaySettingsSchema } from '../rollout/ray-settings.js';
import { StoreRecorder } from '../store/index.js';
import { SPLIT_DATA } from '../tasks/splits.js';
import { AdaptConfigSchema, AdaptGrpoConfigSchema, adaptAdvantageOptions, adaptLearningRate, adaptLossOptions } from './adapt-config.js';
import type { AdaptationRecord } from './adapt.js';
import { appEvalResult, compareEvals, evaluateInstances, withDevices, type AppEvalResult, type BeforeAfterResult, type EvalEpisodeEvent } from './adapt-eval.js';
import { iterationShots } from './adapt-grpo.js';
import { appTestInstances, pickShots, resolveAdaptApp, type AdaptTarget } from './adapt-instances.js';
import { iterationMetrics, runGrpoLoop, type IterationMetrics } from './grpo-loop.js';
import { RolloutRecording } from './rollout-recording.js';
import { runTransformerRollouts, transformerRolloutPlaces } from './transformer-rollouts.js';
import { TransformerSession } from './transformer-session.js';
import { writeSteps } from './transformer-sft.js';

/**
 * Few-shot per-app adaptation of the transformer policy (docs/adaptation.md; AW-Gen §5.1 Q3: 8 instances of an unseen
 * app, 50 more GRPO iterations with the rule-based reward): a LoRA adapter on the screen transformer's linear maps,
 * the base frozen (the trainer's `adapter_begin`), trained by the GRPO loop on the app's shots, then the app's test
 * instances before and after. The adapted model is a model folder of its own (the base with the LoRA, merged into its
 * graph), which runs the app's episodes whole, as AW-Gen evaluates each per-app model on its own app's instances.
 * With `record`, its episodes go to a store run as the builtin adaptation's do (adapt.ts, rollout-recording.ts).
 */
export const TransformerAdaptConfigSchema = z.strictObject({
  shots: z.int().min(1).max(1000).default(8).describe('Adaptation instances of the app (AW-Gen §5.1 Q3: 8)'),
  rank: z.int().min(1).max(256).default(8).describe('LoRA rank of the adapter (default 8)'),
  seed: z.int().min(0).default(0).describe('Seeds the shots, rollouts and minibatch order'),
  grpo: AdaptGrpoConfigSchema.prefault({}).describe('GRPO of the adapter (learningRate: the LoRA\'s)'),
  threads: z.int().min(1).max(64).default(1).describe('torch threads of the trainer'),
  ray: RaySettingsSchema.prefault({})
    .describe('GRPO rollouts on a Ray cluster instead of this machine (docs/ray.md): ray.envs SimDroids there take the place of grpo.rolloutWorkers; the before/after evaluation stays here'),
  recording: AdaptConfigSchema.shape.recording,
});
export type TransformerAdaptConfig = z.infer<typeof TransformerAdaptConfigSchema>;

export interface TransformerAdaptResult {
  target: AdaptTarget;
  shots: string[];
  history: IterationMetrics[];
  /** The adapted model folder; null when stopped before its training began. */
  adapter: string | null;
  /** null: that phase was cut short by a stop. */
  before: AppEvalResult | null;
  after: AppEvalResult | null;
  delta: number | null;
  perTemplate: BeforeAfterResult['perTemplate'];
  stoppedBy: 'done' | 'aborted';
  parameters: { total: number; trainable: number };
  wallS: { before: number; adapt: number; after: number };
}

/**
 * An aborted `signal` stops at the next evaluation episode or GRPO iteration: a phase cut short reports null, and a
 * model whose training began is still saved (as runAdaptation saves a builtin adapter), written whole or not at all.
 */
export async function adaptTransformer(o: {
  base: string; app: string; outDir: string; config: TransformerAdaptConfig; devices?: readonly Device[];
  evalSeeds?: readonly number[]; evalTemplates?: readonly string[]; signal?: AbortSignal;
  onIteration?: (m: IterationMetrics) => void; onPhase?: (phase: 'before' | 'adapt' | 'after') => void;
  onEpisode?: (phase: 'before' | 'after', e: EvalEpisodeEvent) => void;
  /** Messages about the Ray cluster (servers started, one that died). */
  log?: (message: string) => void;
  /**
   * The store run to record into, as the builtin adaptation records (adapt.ts): the before/after evaluation episodes
   * and every GRPO rollout (with its iteration, group, reward and advantage, thinned by `config.recording`).
   */
  record?: AdaptationRecord;
}): Promise<TransformerAdaptResult> {
  const c = o.config;
  const g = c.grpo;
  const target = resolveAdaptApp(o.app);
  const shots = pickShots(target, c.shots, c.seed);
  const seeds = o.evalSeeds ?? SPLIT_DATA.seeds.test;
  const tests = appTestInstances(target, seeds, o.evalTemplates);
  const aborted = () => o.signal?.aborted === true;
  const rec = o.record;
  const screenshots = rec ? c.recording.screenshots : 'none';
  const work = mkdtempSync(join(tmpdir(), 'awb-tadapt-'));
  const session = TransformerSession.start({ threads: c.threads });
  try {
    return await withDevices(o.devices, g.devices, async (devices) => {
      const evalWith = async (phase: 'before' | 'after', model: TransformerModel) => {
        const episodes = await evaluateInstances(tests, () => new TransformerPolicy(model), target.regime, {
          devices, ...(o.signal ? { signal: o.signal } : {}), ...(o.onEpisode ? { onEpisode: (e: EvalEpisodeEvent) => o.onEpisode!(phase, e) } : {}),
          ...(rec ? { record: { recorder: () => new StoreRecorder(rec.db, rec.runId), screenshots } } : {}),
        });
        return aborted() ? null : appEvalResult(episodes, seeds);
      };
      const base = await TransformerModel.load(o.base);
      let t0 = performance.now();
      o.onPhase?.('before');
      const before = await evalWith('before', base);
      await base.close();
      const beforeS = (performance.now() - t0) / 1000;
      if (!before) {
        return { target, shots: [], history: [], adapter: null, parameters: { total: 0, trainable: 0 }, wallS: { before: beforeS, adapt: 0, after: 0 }, before, after: null, delta: null, perTemplate: [], stoppedBy: 'aborted' as const };
      }

      await session.request('load', { dir: o.base });
      const { parameters } = await session.request<{ parameters: TransformerAdaptResult['parameters'] }>('adapter_begin', { rank: c.rank });
      await session.request('grpo_begin', {});
      await session.request('save', { out: join(work, 'model-0'), meta: { trainer: 'transformer-adapt', app: target.app, iteration: 0 } });
      let model = await TransformerModel.load(join(work, 'model-0'));
      // GRPO's rollouts: on the evaluation's devices here, or on worker threads or a Ray cluster (grpo.rolloutWorkers, ray).
      const places = await transformerRolloutPlaces({
        ray: c.ray, rolloutWorkers: g.rolloutWorkers, devices: g.devices, serialPrefix: 'simdroid-tadapt-', modelDir: model.dir, screenshots,
        ...(o.devices ? { callerDevices: o.devices } : { inProcess: devices }), ...(o.log ? { log: o.log } : {}),
      });
      const recording = rec ? new RolloutRecording(rec.db, rec.runId, c.recording, g.iterations) : null;
      const loss = adaptLossOptions(g);
      const history: IterationMetrics[] = [];
      t0 = performance.now();
      o.onPhase?.('adapt');
      try {
        await runGrpoLoop({
          completed: 0, iterations: g.iterations,
          rollout: async ({ iter0, iteration }) => {
            const tasks = iterationShots(shots, g.instancesPerIteration, iter0, c.seed);
            const jobs: RolloutJob[] = tasks.flatMap((instance, gi) => Array.from({ length: g.rolloutsPerInstance }, (_, k) => ({
              group: gi, rollout: k, instance, rngKey: `adapt/${c.seed}/rollout/${iter0}/${gi}/${k}`,
            })));
            const t = performance.now();
            const current = model;
            const rollouts = await runTransformerRollouts(places.on, jobs, {
              model: current, temperature: g.temperature, maxSteps: g.maxSteps,
              ...(recording ? { recorder: (job: RolloutJob) => recording.recorder(iteration, job), screenshots } : {}),
            });
            return { groups: tasks.map((_, gi) => rollouts.filter((r) => r.job.group === gi)), rolloutS: (performance.now() - t) / 1000 };
          },
          score: (_, { groups }) => ({ scores: { kind: 'episode', returns: groups.map((gr) => gr.map((r) => r.reward)), steps: groups.map((gr) => gr.map((r) => r.records.length)) } }),
          advantage: { mode: g.advantage.mode, options: adaptAdvantageOptions(g) },
          update: async ({ iter0, iteration }, { rolled: { groups }, advantages }) => {
            const steps: TrainingStep[] = [];
            let ep = 0;
            groups.forEach((gr, gi) => {
              if (advantages.groups[gi]!.skipped) return;
              gr.forEach((r, i) => {
                if (!r.records.length) return;
                r.records.forEach((rec, t) => steps.push({ inputs: rec.inputs, choice: rec.choice, episode: ep, step: t, logProb: rec.logProb, temperature: rec.temperature, advantage: advantages.advantages[gi]![i]![t]! }));
                ep++;
              });
            });
            const lr = adaptLearningRate(g, iter0);
            let stats: Record<string, number> | null = null;
            if (steps.length) {
              const file = writeSteps(work, steps, `steps-${iteration}.jsonl`);
              stats = await session.request<Record<string, number>>('grpo_update', {
                steps: file, options: { lr, epochs: g.epochs, minibatch_size: g.minibatchSize, max_grad_norm: g.maxGradNorm ?? 0, seed: c.seed * 100_003 + iter0 },
                loss: { clipEps: loss.clipEps, clipEpsHigh: loss.clipEpsHigh ?? null, klBeta: loss.klBeta, maxLogRatio: loss.maxLogRatio, aggregation: loss.aggregation, maxSteps: g.maxSteps },
              });
              rmSync(file, { force: true });
              // A new folder per model: rollout workers know a model by its folder's path.
              const next = join(work, `model-${iteration}`);
              await session.request('save', { out: next, meta: { trainer: 'transformer-adapt', app: target.app, iteration } });
              const old = model;
              model = await TransformerModel.load(next);
              await old.close();
              rmSync(old.dir, { recursive: true, force: true });
            }
            return { stats, lr, freshAdvantages: steps.map((s) => s.advantage!), batchSteps: steps.length };
          },
          log: ({ iteration, t0: it0 }, { rolled: { groups, rolloutS }, advantages, updated: u }) => {
            recording?.finish(iteration, groups.map((gr) => gr.map((r) => r.job)), groups.map((gr) => gr.map((r) => r.reward)), advantages.advantages);
            const s = u.stats;
            const metrics = iterationMetrics({
              groups, stats: advantages.groups, freshAdvantages: u.freshAdvantages, rolloutS, t0: it0, batchSteps: u.batchSteps, lr: u.lr,
              update: { policyLoss: s?.['loss/policy'] ?? 0, kl: s?.['loss/kl'] ?? 0, entropy: s ? s['policy/entropy']! : null, clipFraction: s?.['policy/clip_frac'] ?? 0, gradNorm: s?.['optim/grad_norm'] ?? 0 },
            });
            const m = { iteration, metrics };
            history.push(m);
            o.onIteration?.(m);
            return aborted();
          },
        });
      } finally {
        await places.close();
      }
      const adaptS = (performance.now() - t0) / 1000;
      // copied whole beside the folder, then renamed into place
      const staging = join(dirname(o.outDir), `.${basename(o.outDir)}.saving`);
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(dirname(o.outDir), { recursive: true });
      cpSync(model.dir, staging, { recursive: true });
      rmSync(o.outDir, { recursive: true, force: true });
      renameSync(staging, o.outDir);
      t0 = performance.now();
      let after: AppEvalResult | null = null;
      if (!aborted()) {
        o.onPhase?.('after');
        after = await evalWith('after', model);
      }
      await model.close();
      const afterS = (performance.now() - t0) / 1000;
      const compared = after ? compareEvals(before, after) : null;
      return {
        target, shots: shots.map((s) => `${s.template.id}/${s.seed}`), history, adapter: o.outDir, parameters,
        wallS: { before: beforeS, adapt: adaptS, after: afterS }, before, after, delta: compared?.delta ?? null, perTemplate: compared?.perTemplate ?? [],
        stoppedBy: aborted() ? 'aborted' as const : 'done' as const,
      };
    });
  } finally {
    await session.close();
    rmSync(work, { recursive: true, force: true });
  }
}
