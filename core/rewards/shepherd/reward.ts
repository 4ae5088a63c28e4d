import { assertNever } from '../../util/errors.js';
import { checkRewardValues, type RewardComponent, type RewardEpisode, type StepRewardValue } from '../component.js';
import { verdictOf, type DetailedRewardValues, type ShepherdDetail } from '../details.js';
import { inputsFromEpisode, type JudgeInput, type StepJudge } from './judge.js';

/**
 * How the judge's P(correct) becomes the dense step reward (GUI-Shepherd uses R_PRM per step in
 * PPO, digest 002 §3.2 Eq. 3, without saying which numbers; its offline GRPO uses 1 / 0, App. C):
 * - 'probability': r_t = p (default: keeps the judge's confidence, in [0, 1]);
 * - 'centered':    r_t = 2p − 1 (in [−1, 1]: a wrong step is a penalty, not just less reward);
 * - 'binary':      r_t = 𝕀(p ≥ 0.5) (the paper's accepted / rejected reward, App. C).
 */
export const SHEPHERD_MAPPINGS = ['probability', 'centered', 'binary'] as const;
export type ShepherdMapping = (typeof SHEPHERD_MAPPINGS)[number];

export function mapProbability(p: number, mapping: ShepherdMapping): number {
  switch (mapping) {
    case 'probability':
      return p;
    case 'centered':
      return 2 * p - 1;
    case 'binary':
      return p >= 0.5 ? 1 : 0;
    default:
      return assertNever(mapping, 'shepherd mapping');
  }
}

export interface ShepherdRewardOptions {
  mapping?: ShepherdMapping;
  /** The recorded screenshots of an episode's steps (PNG, by step), for a judge that looks at the screen. */
  screenshotsOf?: (episode: RewardEpisode) => Promise<readonly (Uint8Array | undefined)[]>;
}

/** GUI-Shepherd as a reward component: each step's reward is the judge's verdict on it. */
export class ShepherdReward implements RewardComponent {
  readonly kind = 'shepherd' as const;
  readonly mapping: ShepherdMapping;
  constructor(readonly judge: StepJudge, private readonly opts: ShepherdRewardOptions = {}) {
    this.mapping = opts.mapping ?? 'probability';
  }

  async compute(episode: RewardEpisode, signal?: AbortSignal): Promise<StepRewardValue[]> {
    return (await this.computeDetailed(episode, signal)).values;
  }

  /** The values and the judge's verdict on every step (core/rewards/details.ts), from one round of judging. */
  async computeDetailed(episode: RewardEpisode, signal?: AbortSignal): Promise<DetailedRewardValues> {
    const shots = this.opts.screenshotsOf ? await this.opts.screenshotsOf(episode) : undefined;
    const inputs = inputsFromEpisode(episode, shots);
    // Otherwise the steps' own screenshots (rewardEpisodeFromTrajectory fills them from the store),
    // passed through lazily so a judge that never looks at the screen never reads a PNG.
    if (!shots) {
      inputs.forEach((x, i) => {
        const step = episode.steps[i]!;
        if (x && 'screenshot' in step) Object.defineProperty(x, 'screenshot', { enumerable: true, get: () => step.screenshot });
      });
    }
    const judged: { i: number; x: JudgeInput }[] = inputs.flatMap((x, i) => (x ? [{ i, x }] : []));
    const verdicts = await this.judge.judge(judged.map((j) => j.x), signal);
    // A step whose output did not parse is not a correct step: P = 0 is a verdict here, not a
    // failure to judge (a null would also null the weighted total where format scores the step).
    const noAction = 'no parsed action: not a correct step (P = 0); the format component penalises it';
    const out: StepRewardValue[] = inputs.map((_, i) => ({ step: i, value: mapProbability(0, this.mapping), explanation: noAction }));
    const steps: ShepherdDetail['steps'] = inputs.map((_, i) => ({ step: i, pCorrect: 0, verdict: 'no-action', reason: noAction }));
    judged.forEach(({ i }, k) => {
      const v = verdicts[k]!;
      out[i] = v.p === null
        ? { step: i, value: null, explanation: v.reason }
        : { step: i, value: mapProbability(v.p, this.mapping), explanation: `${this.judge.name}: ${v.explanation}` };
      steps[i] = v.p === null
        ? { step: i, pCorrect: null, verdict: 'unjudged', reason: v.reason }
        : { step: i, pCorrect: v.p, verdict: verdictOf(v.p), reason: v.explanation };
    });
    checkRewardValues(this.kind, episode, out);
    return { values: out, detail: { kind: 'shepherd', judge: this.judge.name, mapping: this.mapping, steps } };
  }
}
