/** Failure analysis's data as the API carries it (core/analysis; docs/failure-analysis.md). */
export type {
  Alignment, Classification, DiffNode, Divergence, EpisodeExplanation, FailureCell, FailureClass, Flip, NodeChange, PathRewards, RewardsBeside,
  RunComparison, RunFailures, ScreenRef as ScreenRefView, TreeDiff,
} from '../analysis/index.js';
export type { CheckVerdict as CheckVerdictView } from '../tasks/verdict.js';
