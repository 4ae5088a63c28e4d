/** SFT epoch metrics (core/rl/sft.ts SftEpochMetrics) as stored per epoch, a run's iterations, in the training_metrics table. */
export const SFT_METRIC = { nll: 'loss/nll', top1: 'acc/top1', gradNorm: 'grad/norm', steps: 'batch/steps', epochS: 'perf/epoch_s' } as const;
