import { createEncoder, type EncoderConfig, type TextEncoder } from '../../policy/encoder.js';
import type { Rng } from '../../util/rng.js';
import type { RewardEpisode } from '../component.js';
import { formatProgAction, toProgAction, withPlaceholders } from './lcs.js';
import { SigmoidMlp } from '../mlp.js';

/**
 * The builtin progress model: Prog([g, a_1..a_t, o_{t+1}]) (ProgRM Eq. 6: the whole action
 * history plus only the latest screen). Its text view is the hashed n-gram encoder of the policy
 * (core/policy/encoder.ts), its head the sigmoid MLP of core/rewards/mlp.ts.
 *
 * Features (all text with instance values as `<param>` placeholders, so one template's seeds
 * share them), F = 4·D + 2:
 *   e(instruction) ‖ unit(Σ_i e(action_i)) ‖ e(last action)
 *   ‖ e(screen: foreground activity + the labels in the accessibility tree) ‖ [t/20, has-screen]
 * with each action written TYPE("element", "text"). The history is the normalised sum of the
 * actions' embeddings (each action counts once, whatever its length), built incrementally: O(T·D)
 * per episode where embedding the growing history text would be O(T²) in hashing.
 *
 * State indexing (digest §2.1): state −1 is the initial screen before any action (the paper's
 * "Init" row); state t is the state after step t. The screen after step t is step t+1's screen;
 * after the last step the recording has no screen in RewardEpisode, so the last seen one stands in.
 */
export const PROGRESS_HORIZON = 20;

export function progressFeatureDim(encoderDim: number): number {
  return 4 * encoderDim + 2;
}

/** The visible labels of a uiautomator XML dump (text and content-desc attributes), deduplicated. */
export function screenText(xml: string | undefined): string {
  if (!xml) return '';
  const seen = new Set<string>();
  for (const m of xml.matchAll(/(?:text|content-desc)="([^"]*)"/g)) if (m[1]) seen.add(m[1]);
  return [...seen].join(' ');
}

export interface ProgressModel {
  encoder: TextEncoder;
  net: SigmoidMlp;
}

export function createProgressModel(rng: Rng, opts: { encoder?: EncoderConfig; hidden?: number } = {}): ProgressModel {
  const encoder = createEncoder(opts.encoder ?? { kind: 'hashed-ngram', dim: 64, charN: 3 });
  return { encoder, net: SigmoidMlp.init({ input: progressFeatureDim(encoder.dim), hidden: opts.hidden ?? 32 }, rng) };
}

/**
 * Feature vectors of states −1..T−1 of an episode (T + 1 rows). Row 0 is the initial state; row
 * t + 1 the state after step t.
 */
export function episodeFeatures(encoder: TextEncoder, ep: RewardEpisode): Float32Array[] {
  const D = encoder.dim;
  const F = progressFeatureDim(D);
  const ph = (s: string) => withPlaceholders(s, ep.params);
  const instruction = encoder.embed(ph(ep.instruction));
  const actions = ep.steps.map((s) => formatProgAction(toProgAction(s, ep.params)));
  const screenOf = (i: number): { text: string; has: boolean } => {
    const s = ep.steps[Math.min(i, ep.steps.length - 1)];
    if (!s) return { text: '', has: false };
    return { text: ph(`${s.foreground.activity} ${screenText(s.tree)}`), has: i < ep.steps.length && s.tree !== undefined };
  };
  const rows: Float32Array[] = [];
  const history = new Float64Array(D);
  for (let t = -1; t < ep.steps.length; t++) {
    const x = new Float32Array(F);
    x.set(instruction, 0);
    if (t >= 0) {
      const e = encoder.embed(actions[t]!);
      for (let i = 0; i < D; i++) history[i] = history[i]! + e[i]!;
    }
    let norm = 0;
    for (let i = 0; i < D; i++) norm += history[i]! * history[i]!;
    if (norm > 0) for (let i = 0; i < D; i++) x[D + i] = history[i]! / Math.sqrt(norm);
    x.set(encoder.embed(t >= 0 ? actions[t]! : ''), 2 * D);
    const screen = screenOf(t + 1);
    x.set(encoder.embed(screen.text), 3 * D);
    x[4 * D] = (t + 1) / PROGRESS_HORIZON;
    x[4 * D + 1] = screen.has ? 1 : 0;
    rows.push(x);
  }
  return rows;
}

/** Prog of every state −1..T−1 of the episode (T + 1 values in [0, 1]). */
export function predictProgress(model: ProgressModel, ep: RewardEpisode): number[] {
  return episodeFeatures(model.encoder, ep).map((x) => model.net.predict(x));
}
