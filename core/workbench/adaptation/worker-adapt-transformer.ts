import { adaptConfigOf, type AdaptationReport } from '../../rl/adapt.js';
import { pickShots, resolveAdaptApp } from '../../rl/adapt-instances.js';
import { adaptTransformer } from '../../rl/transformer-adapt.js';
import { TransformerModel } from '../../policy/transformer/model.js';
import { createRun, finishRun, putIterationMetrics, type WritableDB } from '../../store/index.js';
import { CONTROL, type FromTrainingWorker, type WorkerJob } from '../training/protocol.js';

/**
 * The worker side of a transformer model's per-app adaptation (core/workbench/training/worker.ts runs it):
 * adaptTransformer (core/rl/transformer-adapt.ts) with its evaluation episodes and GRPO iterations posted as the
 * builtin adaptation's progress events, so the Adaptation view shows them alike, and its result as an
 * AdaptationReport (before → after, per template). A stop is read at each event; the adapted model whose training
 * began is still saved. The GRPO iterations' metrics, its rollouts (thinned by `recording`) and the before/after evaluation
 * episodes go to a 'training' run of its own (config `trainer: 'adapt'`), as the builtin adaptation's do, so Trajectories
 * lists them under the run.
 */
export async function runTransformerAdaptationJob(
  job: Extract<WorkerJob, { kind: 'adapt-transformer' }>, db: WritableDB, control: Int32Array, post: (m: FromTrainingWorker) => void,
): Promise<void> {
  const p = job.prepared;
  const c = p.config;
  const ac = new AbortController();
  const stopAsked = () => Atomics.load(control, 0) === CONTROL.stop;
  if (stopAsked()) ac.abort();
  const run = createRun(db, { kind: 'training', name: `adapt ${p.app} transformer grpo seed ${c.seed}`, config: { trainer: 'adapt', ...p.summary } });
  post({ type: 'started', runId: run.id, completed: 0, total: p.total });
  const check = () => {
    if (stopAsked()) ac.abort();
  };
  try {
    const base = await TransformerModel.load(p.base);
    const sha256 = base.sha256;
    await base.close();
    const res = await adaptTransformer({
      base: p.base, app: p.app, outDir: p.outDir, config: c, evalSeeds: p.evalSeeds, signal: ac.signal, record: { db, runId: run.id },
      ...(p.evalTemplates ? { evalTemplates: p.evalTemplates } : {}),
      onEpisode: (phase, e) => {
        post({ type: 'adapt-progress', progress: { phase, ...e } });
        check();
      },
      onIteration: ({ iteration, metrics }) => {
        putIterationMetrics(db, run.id, iteration, metrics);
        post({ type: 'adapt-progress', progress: { phase: 'grpo', iteration, iterations: c.grpo.iterations, metrics } });
        check();
      },
      onPhase: (phase) => post({ type: 'progress', detail: phase === 'adapt' ? 'GRPO on the shots' : `${phase} evaluation` }),
    });
    if (res.adapter) post({ type: 'adapt-progress', progress: { phase: 'saved', path: res.adapter } });
    const target = resolveAdaptApp(p.app);
    const report: AdaptationReport = {
      app: target.app, package: target.package, regime: target.regime, base: { path: p.base, sha256 },
      adapter: { kind: 'lowrank', rank: c.rank, parameters: res.parameters.trainable, path: res.adapter },
      // The builtin adaptation config this run corresponds to (GRPO only; the LoRA's rank is the adapter's above).
      config: adaptConfigOf({ config: { shots: c.shots, method: 'grpo', seed: c.seed, grpo: c.grpo } }),
      shots: pickShots(target, c.shots, c.seed).map((s) => ({ templateId: s.template.id, seed: s.seed })),
      demonstrations: null, training: { sft: [], grpo: res.history }, evalSeeds: p.evalSeeds,
      before: res.before, after: res.after, delta: res.delta, perTemplate: res.perTemplate, stoppedBy: res.stoppedBy,
      seconds: { before: res.wallS.before, adapt: res.wallS.adapt, after: res.wallS.after },
    };
    finishRun(db, run.id, report.stoppedBy === 'done' ? 'finished' : 'interrupted');
    post({ type: 'adapt-report', report });
    post({ type: 'done', stoppedBy: report.stoppedBy, iterations: res.history.length, checkpoint: null });
  } catch (e) {
    finishRun(db, run.id, 'interrupted');
    throw e;
  }
}
