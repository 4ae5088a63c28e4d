import { abstractDescription, placeholderValues, type PlaceholderValue } from './placeholders.js';

export const DISTILLER_KINDS = ['consensus', 'llm'] as const;
export type DistillerKind = (typeof DISTILLER_KINDS)[number];

/** A successful episode as the distillers see it. */
export interface SuccessTrace {
  instruction: string;
  params: Record<string, unknown>;
  /** The step descriptions in order, as recorded (steps without one left out). */
  descriptions: readonly string[];
}

export interface DistillInput {
  templateId: string;
  /**
   * The "superior" success of this batch, the one the paper's Φ reads (Alg. 1 line 10 gives no
   * criterion; we take the fewest steps, the paper's own motivating example being a shorter path).
   */
  best: SuccessTrace;
  /** Every success kept for the template, abstracted (placeholders in), oldest first, `best` included. */
  exemplars: ReadonlyArray<readonly string[]>;
  /** The current milestones (P_update), or null on the first distillation (P_init). */
  existing: readonly string[] | null;
}

/** Φ: successful trajectories → an ordered list of milestones with placeholders. */
export interface MilestoneDistiller {
  readonly kind: DistillerKind;
  distill(input: DistillInput, signal?: AbortSignal): Promise<string[]>;
}

/** A step description with the instance's values abstracted (the form exemplars are kept in). */
export function abstractTrace(trace: SuccessTrace): string[] {
  const values: PlaceholderValue[] = placeholderValues(trace.params);
  return trace.descriptions.map((d) => abstractDescription(d, values));
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/** Which positions of `a` are matched in one longest common subsequence of `a` and `b`. */
function lcsMatched(a: readonly string[], b: readonly string[]): boolean[] {
  const n = a.length;
  const m = b.length;
  const L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      L[i]![j] = a[i] === b[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
    }
  }
  const matched = new Array<boolean>(n).fill(false);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      matched[i] = true;
      i++;
      j++;
    } else if (L[i + 1]![j]! >= L[i]![j + 1]!) i++;
    else j++;
  }
  return matched;
}

/**
 * The built-in distiller, no model needed: a consensus of the abstracted step descriptions across the
 * template's successes. The shortest exemplar is the anchor (the paper's "superior" path); each of its
 * steps is aligned against every exemplar by a longest common subsequence, and a step is a milestone
 * when at least `quorum` of the exemplars contain it in that order (steps only some successes took —
 * detours, retries — drop out, the paper's "ignore redundant or non-essential steps"). Consecutive
 * duplicates collapse into one ("Tap Next month" twice is one stage).
 */
export class ConsensusDistiller implements MilestoneDistiller {
  readonly kind = 'consensus' as const;
  constructor(private readonly quorum = 0.5) {
    if (!(quorum > 0 && quorum <= 1)) throw new RangeError(`ConsensusDistiller quorum must be in (0, 1], got ${quorum}`);
  }

  async distill(input: DistillInput): Promise<string[]> {
    return consensusMilestones(input.exemplars, this.quorum);
  }
}

/**
 * Declaring the task complete or infeasible changes nothing on the device; as a milestone it would pay
 * a failed episode for claiming success, so the consensus leaves it out (answers stay: for a question
 * the answer is the task).
 */
const isStatusStep = (d: string) => /^declare the task (complete|infeasible)$/i.test(d.trim());

export function consensusMilestones(exemplars: ReadonlyArray<readonly string[]>, quorum = 0.5): string[] {
  const usable = exemplars.map((e) => e.filter((d) => !isStatusStep(d))).filter((e) => e.length > 0);
  if (usable.length === 0) return [];
  const anchor = usable.reduce((a, b) => (b.length < a.length ? b : a));
  const anchorN = anchor.map(norm);
  const support = new Array<number>(anchor.length).fill(0);
  for (const ex of usable) {
    lcsMatched(anchorN, ex.map(norm)).forEach((hit, i) => { if (hit) support[i]!++; });
  }
  const need = Math.ceil(quorum * usable.length - 1e-9);
  const out: string[] = [];
  anchor.forEach((step, i) => {
    if (support[i]! >= need && norm(out[out.length - 1] ?? '') !== anchorN[i]) out.push(step.trim());
  });
  return out;
}
