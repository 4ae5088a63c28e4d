import type { Candidate, RecordedCandidate } from './record.js';

/**
 * How sure a policy was of each candidate: the one place the Agent view's P column, the candidates drawn on the
 * screen, the recorded steps (and so the replay) and the Confidence breakpoint read it from.
 *
 * A policy that gives its own probabilities (the builtin and ONNX policies: softmax(s/T), the distribution they
 * sample from) is taken at its word. A policy that gives only scores gets a softmax over them. Applying the softmax
 * to numbers that are already probabilities flattens them towards uniform (a 0.99 among 40 candidates reads as
 * ~6%), which is why a policy's own probability is never transformed again.
 */
export function candidateProbabilities(cands: readonly Candidate[]): number[] {
  if (cands.every((c) => c.probability !== undefined)) return cands.map((c) => c.probability!);
  const max = Math.max(...cands.map((c) => c.score));
  const exps = cands.map((c) => Math.exp(c.score - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** The candidates with their probabilities filled in, as a step records them. */
export function withProbabilities(cands: readonly Candidate[]): RecordedCandidate[] {
  const p = candidateProbabilities(cands);
  return cands.map((c, i) => ({ ...c, probability: p[i]! }));
}

/**
 * Candidates as the store or an export file kept them. One without `probability` was recorded before steps kept it,
 * when the builtin and ONNX policies (the only ones that gave candidates) put their probability in `score`.
 */
export function storedCandidates(cands: ReadonlyArray<{ action: unknown; score: number; probability?: number | undefined }>): RecordedCandidate[] {
  return cands.map((c) => ({ action: c.action, score: c.score, probability: c.probability ?? c.score }));
}

/**
 * The probability the policy gave the action it chose (matched by its JSON), or the best candidate's when the choice
 * is not among them (an action the policy wrote itself); null without candidates.
 */
export function chosenProbability(cands: readonly Candidate[] | undefined, chosen: unknown): number | null {
  if (!cands || cands.length === 0) return null;
  const p = candidateProbabilities(cands);
  const key = JSON.stringify(chosen);
  const i = cands.findIndex((c) => JSON.stringify(c.action) === key);
  return i >= 0 ? p[i]! : Math.max(...p);
}
