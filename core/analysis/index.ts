/**
 * Failure analysis of stored episodes (docs/failure-analysis.md): aligning a failed path with the
 * successful ones by screen state, the failure taxonomy, a run's failure table and run vs run.
 */
export { align, type Alignment, type Divergence, type Reference, type ScreenRef } from './align.js';
export { explainEpisode, storedVerdict, type EpisodeExplanation, type ExplainOptions } from './explain.js';
export type { EpisodePath, PathStep } from './path.js';
export {
  alignedReference, PATH_REWARD_KINDS, rewardEpisodeOfPath, rewardsBeside, ShepherdJudgeNotFittedError,
  type PathRewardKind, type PathRewardOptions, type PathRewards, type RewardsBeside,
} from './rewards.js';
export { oraclePath } from './oracle.js';
export { findReferences, pathFromTrajectory, type ReferenceOptions } from './references.js';
export { compareRuns, runFailures, type FailureCell, type Flip, type RunComparison, type RunFailures, type RunFailuresOptions } from './run-failures.js';
export { screenState, sameScreen, type MatchLevel, type ScreenState } from './screen-state.js';
export {
  BRIEF_VISIT_STEPS, classifyFailure, COMMIT_LABEL, FAILURE_CLASSES, LOOP_VISITS, similarity, STUCK_STEPS,
  type Classification, type FailureClass, type FailureEvidence, type FailureLabel,
} from './taxonomy.js';
export { diffTrees, type DiffNode, type NodeChange, type TreeDiff } from './tree-diff.js';
