import type { Action } from '../../actions/schema.js';
import type { ForegroundApp } from '../../device/device.js';
import type { Observation } from '../../device/observation.js';
import { flattenUiTree, parseUiTree, type UiElement } from '../../a11y/ui-tree.js';
import { assertNever } from '../../util/errors.js';
import type { RewardEpisode, RewardStep } from '../component.js';

/**
 * GUI-Shepherd's process reward model (digest 002 §2.1, Eq. 1): r_t = R_PRM(I, s_t, a_t), a binary
 * judgement of whether the step is correct given the instruction I, the screen s_t and the action
 * a_t. Both judges here answer it as a probability P(correct | I, s_t, a_t) so the verifier can rank
 * (the paper ranks by the positive token's logit, Eq. 6; a probability is monotone in it).
 */

/** What a judge sees of one step. Built from a live observation or from a recorded step. */
export interface JudgeInput {
  instruction: string;
  /** 0-based step index. */
  step: number;
  action: Action;
  /** The screen's elements in document order (action indices point into them); empty when unknown. */
  elements: readonly UiElement[];
  foreground: ForegroundApp;
  /** The earlier steps' actions and one-line descriptions, oldest first. */
  history: readonly JudgeHistoryStep[];
  /** The recorded label of the element acted on, when the tree is not available. */
  targetLabel?: string;
  /** The screen as PNG (the VLM judge needs it; the builtin judge does not). */
  screenshot?: Uint8Array;
}

export interface JudgeHistoryStep {
  action?: Action;
  description?: string;
}

/** A judge's answer for one step: p = P(correct), or null with the reason it could not judge. */
export type JudgeVerdict = { p: number; explanation: string } | { p: null; reason: string };

export interface StepJudge {
  readonly name: string;
  /** One verdict per input, in order. A judge never turns a failure into p = 0: it answers null. */
  judge(inputs: readonly JudgeInput[], signal?: AbortSignal): Promise<JudgeVerdict[]>;
}

/** The judge input for a step about to be taken on a live screen. */
export function inputFromObservation(
  obs: Observation, ctx: { instruction: string; step: number; history: readonly JudgeHistoryStep[] }, action: Action,
): JudgeInput {
  const input: JudgeInput = {
    instruction: ctx.instruction, step: ctx.step, action, elements: obs.elements, foreground: obs.foreground,
    history: ctx.history.map((h) => ({ action: h.action, description: h.description })),
  };
  if (obs.screenshot) input.screenshot = obs.screenshot;
  return input;
}

/**
 * The judge inputs for a recorded episode's steps; null for a step without a parsed action (a
 * format error: there is nothing to judge, the format component scores it). A tree that does not
 * parse leaves the step with no elements (the recorded target label stands in).
 */
export function inputsFromEpisode(episode: RewardEpisode, screenshots?: readonly (Uint8Array | undefined)[]): (JudgeInput | null)[] {
  const history: JudgeHistoryStep[] = [];
  return episode.steps.map((s: RewardStep, i) => {
    let out: JudgeInput | null = null;
    if (s.action) {
      out = {
        instruction: episode.instruction, step: s.index, action: s.action, elements: elementsOf(s.tree),
        foreground: s.foreground, history: history.slice(),
      };
      if (s.target) out.targetLabel = s.target.label;
      const shot = screenshots?.[i];
      if (shot) out.screenshot = shot;
    }
    history.push({ action: s.action, description: s.description });
    return out;
  });
}

function elementsOf(tree: string | undefined): UiElement[] {
  if (!tree) return [];
  try {
    return flattenUiTree(parseUiTree(tree));
  } catch {
    // A corrupt recorded tree: judge from the action and recorded label alone (features say so).
    return [];
  }
}

/** The element an action acts on, when it names one by index and the screen is known. */
export function targetElement(input: JudgeInput): UiElement | undefined {
  const a = input.action;
  if (!('index' in a) || a.index === undefined) return undefined;
  return input.elements[a.index];
}

/** A short human-readable form of an action (prompts, explanations). */
export function actionText(input: JudgeInput): string {
  const a = input.action;
  const el = targetElement(input);
  const label = el ? (el.node.text.trim() || el.node.contentDesc.trim() || el.node.resourceId.replace(/^.*:id\//, '')) : input.targetLabel;
  const on = label ? ` on "${label}"` : '';
  switch (a.action_type) {
    case 'click':
    case 'long_press':
    case 'double_tap':
      return `${a.action_type}${on}`;
    case 'input_text':
      return `type "${a.text}"${on}`;
    case 'scroll':
      return `scroll ${a.direction}${on}`;
    case 'swipe':
      return `swipe from (${a.start.join(', ')}) to (${a.end.join(', ')})`;
    case 'open_app':
      return `open app "${a.app_name}"`;
    case 'answer':
      return `answer "${a.text}"`;
    case 'status':
      return `status ${a.goal_status}`;
    case 'press_key':
      return `press ${a.key}`;
    case 'keyboard_enter':
    case 'navigate_back':
    case 'navigate_home':
    case 'wait':
      return a.action_type;
    default:
      return assertNever(a, 'action');
  }
}
