/** Failure analysis's data as the API carries it (core/analysis; docs/failure-analysis.md). */
export type {
  Alignment, Classification, Divergence, EpisodeExplanation, FailureCell, FailureClass, Flip, RunComparison, RunFailures, TreeDiff,
} from '../analysis/index.js';
export type { CheckVerdict as CheckVerdictView } from '../tasks/verdict.js';
