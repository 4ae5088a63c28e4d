import type { Action } from '../../actions/schema.js';
import type { TextEncoder } from '../../policy/encoder.js';
import type { RewardStep } from '../component.js';
import { assertNever } from '../../util/errors.js';

/**
 * ProgRM's action triples and soft longest common subsequence (digest 001 §2.3.1–2.3.4; Zhang et al.
 * 2025, "Build Better GUI Agents with Progress Rewards", App. A).
 *
 * The paper's WikiHow action is (type, element, text) with element an integer id. Our ids are
 * indices into the screen's element list, which shift between screens and episodes, so `element`
 * is the touched element's label instead (the literal id would make 1[a = b] compare positions,
 * not targets). Instance values (a contact's name, a file name) are replaced by `<param>`
 * placeholders so that trajectories of different seeds of one template share steps.
 */
export const PROG_ACTION_TYPES = [
  'CLICK', 'LONG_CLICK', 'SCROLL', 'SWIPE', 'INPUT', 'ENTER', 'GOBACK', 'HOME', 'OPEN_APP', 'NOTHING', 'ANSWER',
  'STATUS', 'INVALID',
] as const;
export type ProgActionType = (typeof PROG_ACTION_TYPES)[number];

export interface ProgAction {
  type: ProgActionType;
  element: string;
  text: string;
}

/** (path, text) of every string or number leaf in nested params, e.g. ["person.name", "Diego Garcia"]. */
function paramLeaves(value: unknown, path: string, out: Array<[string, string]>, depth = 0): void {
  if (typeof value === 'string' || typeof value === 'number') out.push([path, String(value)]);
  else if (value && typeof value === 'object' && depth < 4) {
    for (const [k, v] of Object.entries(value)) paramLeaves(v, path ? `${path}.${k}` : k, out, depth + 1);
  }
}

/**
 * Replaces every parameter value (2+ characters, nested ones too) in `s` by `<path>`, longest value
 * first, so "Diego Garcia" becomes <person.name> before "Diego" could become <person.first>.
 */
export function withPlaceholders(s: string, params: Record<string, unknown>): string {
  if (!s) return s;
  const leaves: Array<[string, string]> = [];
  paramLeaves(params, '', leaves);
  leaves.sort((a, b) => b[1].length - a[1].length);
  let out = s;
  for (const [k, v] of leaves) if (v.length >= 2 && out.includes(v)) out = out.split(v).join(`<${k}>`);
  return out;
}

function swipeDirection(a: Extract<Action, { action_type: 'swipe' }>): string {
  const dx = a.end[0] - a.start[0];
  const dy = a.end[1] - a.start[1];
  if (Math.abs(dx) > Math.abs(dy)) return dx > 0 ? 'right' : 'left';
  return dy > 0 ? 'down' : 'up';
}

/** Maps one recorded step to ProgRM's (type, element, text) triple. An unparsed or failed step is INVALID. */
export function toProgAction(step: RewardStep, params: Record<string, unknown> = {}): ProgAction {
  const el = withPlaceholders(step.target?.label ?? '', params);
  const a = step.action;
  if (!a || step.error) return { type: 'INVALID', element: '', text: '' };
  const t = (type: ProgActionType, element = '', text = ''): ProgAction => ({ type, element, text: withPlaceholders(text, params) });
  switch (a.action_type) {
    case 'click':
      return t('CLICK', el || (a.index !== undefined ? `#${a.index}` : 'point'));
    case 'long_press':
      return t('LONG_CLICK', el || (a.index !== undefined ? `#${a.index}` : 'point'));
    case 'double_tap':
      // ProgRM's action types have no double tap: two clicks on one element, said in the text.
      return t('CLICK', el || (a.index !== undefined ? `#${a.index}` : 'point'), 'double');
    case 'scroll':
      return t('SCROLL', el, a.direction);
    case 'swipe':
      return t('SWIPE', '', swipeDirection(a));
    case 'input_text':
      return t('INPUT', el, a.text);
    case 'keyboard_enter':
      return t('ENTER');
    case 'press_key':
      // ProgRM has no key type of its own; the key goes in the text, as a scroll's direction does.
      return t('ENTER', '', a.key);
    case 'navigate_back':
      return t('GOBACK');
    case 'navigate_home':
      return t('HOME');
    case 'open_app':
      return t('OPEN_APP', a.app_name.toLowerCase());
    case 'wait':
      return t('NOTHING');
    case 'answer':
      return t('ANSWER', '', a.text);
    case 'status':
      return t('STATUS', '', a.goal_status);
    default:
      return assertNever(a, 'action');
  }
}

export function formatProgAction(a: ProgAction): string {
  const args = [a.element && JSON.stringify(a.element), a.text && JSON.stringify(a.text)].filter(Boolean);
  return `${a.type}(${args.join(', ')})`;
}

export interface SoftMatchOptions {
  /** Sentence similarity for INPUT/ANSWER texts, in [0, 1] (the paper's SBERT). */
  encoder: TextEncoder;
  /** Weight of a NOTHING–NOTHING match (paper: ε = 0.4). */
  epsilon: number;
  /**
   * Text similarities below this count as 0 (not in the paper; 0 keeps its literal f). Unrelated
   * texts have small positive cosines, and with CR counting matched pairs any f > 0 would be a
   * key step.
   */
  textThreshold: number;
}

/** cos(e(a), e(b)) clamped to [0, 1]; identical texts give 1 even when empty. */
export function textSimilarity(encoder: TextEncoder, a: string, b: string): number {
  if (a === b) return 1;
  const x = encoder.embed(a);
  const y = encoder.embed(b);
  let dot = 0;
  for (let i = 0; i < x.length; i++) dot += x[i]! * y[i]!;
  return Math.min(1, Math.max(0, dot));
}

/**
 * Soft match (ProgRM App. A, Eq. 9):
 *   f(a, b) = 0                      if type_a ≠ type_b
 *           = SBERT(text_a, text_b)  if type_a = type_b ∈ {INPUT, ANSWER}
 *           = ε                      if type_a = type_b = NOTHING
 *           = 1[a = b]               otherwise
 * SBERT here is the cosine of the builtin hashed n-gram encoder's embeddings, clamped to [0, 1].
 * INVALID steps (unparseable output) never match: they are no one's progress.
 */
export function softMatch(a: ProgAction, b: ProgAction, opts: SoftMatchOptions): number {
  if (a.type !== b.type) return 0;
  switch (a.type) {
    case 'INPUT':
    case 'ANSWER': {
      const sim = textSimilarity(opts.encoder, a.text, b.text);
      return sim >= opts.textThreshold ? sim : 0;
    }
    case 'NOTHING':
      return opts.epsilon;
    case 'INVALID':
      return 0;
    case 'CLICK':
    case 'LONG_CLICK':
    case 'SCROLL':
    case 'SWIPE':
    case 'ENTER':
    case 'GOBACK':
    case 'HOME':
    case 'OPEN_APP':
    case 'STATUS':
      return a.element === b.element && a.text === b.text ? 1 : 0;
    default:
      return assertNever(a.type, 'ProgRM action type');
  }
}

export interface LcsResult {
  /** SoftLCS(a, b), the DP value. */
  score: number;
  /** Matched (index in a, index in b) pairs, increasing in both. */
  pairs: Array<[number, number]>;
}

const TOL = 1e-9;

/**
 * Soft LCS (ProgRM App. A, Eq. 8):
 *   S(i, j) = max{ S(i−1, j−1) + f(a_i, b_j), S(i−1, j), S(i, j−1) },  S(0, ·) = S(·, 0) = 0.
 * With f ∈ {0, 1} this is the hard LCS of Eq. 7. It is computed on suffixes (the same value, as
 * the LCS of the reversed sequences) so that the alignment can be traced forwards: at each cell
 * take the match when it attains the optimum with f > 0, else skip a_i, else skip b_j. Of the
 * optimal alignments that gives the one with the earliest positions in both sequences: with b a
 * recipe, the first time a trajectory reaches a recipe step is its key step (a later repeat is not),
 * and a repeated action is credited with the earlier recipe step, not the later one.
 */
export function softLcs<T>(a: readonly T[], b: readonly T[], f: (x: T, y: T) => number): LcsResult {
  const m = a.length;
  const n = b.length;
  const w = n + 1;
  const dp = new Float64Array((m + 1) * w);
  const sim = new Float64Array(m * n);
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      const s = f(a[i]!, b[j]!);
      sim[i * n + j] = s;
      dp[i * w + j] = Math.max(dp[(i + 1) * w + j + 1]! + s, dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    const s = sim[i * n + j]!;
    const here = dp[i * w + j]!;
    if (s > 0 && Math.abs(here - (dp[(i + 1) * w + j + 1]! + s)) <= TOL) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (Math.abs(here - dp[(i + 1) * w + j]!) <= TOL) i++;
    else j++;
  }
  return { score: dp[0]!, pairs };
}

/**
 * Multi-sequence LCS by a left fold (ProgRM App. A, Eq. 10): LCS~(a_1, …, a_n) = a_1 ⊙ a_2 ⊙ … ⊙ a_n.
 * The running recipe is the left operand, so where soft matches differ the recipe keeps its own element.
 */
export function foldLcs<T>(seqs: readonly (readonly T[])[], f: (x: T, y: T) => number): T[] {
  if (seqs.length === 0) return [];
  let acc: T[] = [...seqs[0]!];
  for (const s of seqs.slice(1)) acc = softLcs(acc, s, f).pairs.map(([ia]) => acc[ia]!);
  return acc;
}
