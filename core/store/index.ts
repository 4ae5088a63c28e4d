/**
 * The trajectory store: runs, episodes, steps with their observations and rewards, in one SQLite
 * file. Repository functions take a branded connection (`openStore` / `openStoreReadonly`); the
 * recorder plugs into the episode runner; export/import move episodes between stores and to Python.
 */
export { openStore, openStoreReadonly, type ReadableDB, type WritableDB } from './db.js';
export { LATEST_VERSION, migrate, schemaVersion } from './migrate.js';
export type { EpisodeId, RunId } from './ids.js';
export * from './errors.js';
export { STORED_EPISODE_STATUSES, type StatusCounts, type StoredEpisodeStatus } from './statuses.js';
export { deviceKindOf, type DeviceInfo, type DeviceKind, type TemplateInfo } from './catalog.js';
export { contentStats, getScreenshot, getTree, type ContentStats } from './content.js';
export {
  createRun, finishRun, getRun, InstanceSet, interruptRun, listRuns, reapDeadRuns, resumeRun, runOwner,
  type NewRun, type ResumeState, type Run, type RunConfig, type RunKind, type RunStatus, type RunSummary,
} from './runs.js';
export { episodeIdByUid, type EpisodeInfo } from './episodes.js';
export type { Reward, StoredStep } from './steps.js';
export { OUTCOME_REWARD, putRewards, type StepReward } from './rewards.js';
export {
  getSubgoalProgress, loadUnscored, putRewardValues, putSubgoalProgress, SubgoalProgressError, UnscoredReasonError,
  type MaybeStepReward, type SubgoalProgress,
} from './reward-annotations.js';
export { StoreRecorder, type StoreRecorderOptions } from './recorder.js';
export {
  EPISODE_SORT_KEYS, EpisodeFilterSchema, episodeFilterValues, listEpisodes, successfulEpisodes, type EpisodeFilter, type EpisodePage, type EpisodeSortKey,
  type EpisodeSummary, type RolloutPlace,
} from './queries.js';
export { loadTrajectory, type InstanceInfo, type Trajectory } from './trajectory.js';
export { exportEpisodes, type ExportSummary } from './export.js';
export { importEpisodes, type ImportSummary } from './import.js';
export { FORMAT_VERSION } from './format.js';
export {
  keepsIteration, listIterationMetrics, MetricValueError, metricSeries, pruneIterationRollouts, putIterationMetrics, putRolloutScores, rolloutIterations,
  type IterationMetricsRow, type RolloutRetention, type RolloutScore,
} from './training.js';
