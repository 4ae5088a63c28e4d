import { awUiElements, type AwUiElement } from '../../../a11y/androidworld-elements.js';
import type { Observation } from '../../../device/observation.js';
import type { StepRecord } from '../../../episode/record.js';
import { assertNever } from '../../../util/errors.js';
import { historyLines, type ChatMessage, type ContentPart } from '../prompt.js';
import type { AndroidWorldTexts } from '../settings.js';
import { agentJsonObject, m3aElementsText, parseReasonAction, pythonFormat, t3aElementsText } from './androidworld-text.js';
import { drawSetOfMarks } from './set-of-marks.js';
import { RequestImages, type AgentInput, type AgentRequest } from './types.js';

/**
 * AndroidWorld's own agents as its run.py runs them with an OpenAI-compatible model (infer.Gpt4Wrapper): T3A
 * (android_world/agents/t3a.py, text only) and M3A (m3a.py, the screenshot and the same with set-of-marks). Each
 * asks its model twice per step:
 * - the action: one user turn, [the prompt] (T3A) or [the prompt, the screenshot, the set-of-marks screenshot] (M3A),
 *   the prompt being ACTION_SELECTION_PROMPT_TEMPLATE filled with the goal, the history ("Step k: …" (T3A) or
 *   "Step k- …" (M3A) per earlier step, or the text for no step yet), the screen's elements (androidworld-text.ts)
 *   and no task guidelines; the model answers "Reason: … Action: {…}";
 * - once the action is done and the next screen is there, the summary: one user turn with the summary template filled
 *   with the goal, the elements before and after, the action (json.dumps of its JSON) and the reason, plus (M3A) the
 *   set-of-marks screenshot before and the one after with its "after" label. "Action selected: <action>. <reply>" is
 *   the step's line of history. A step whose reply does not read, or whose action fails, gets the agent's fixed line
 *   instead and no summary call.
 * The templates and fixed lines are read from the user's t3a.py / m3a.py (AndroidWorldTexts). Here the summary call
 * of step t is made when step t is asked (its after-screen is step t's observation) and recorded with step t's request.
 * Sampling as Gpt4Wrapper: temperature 0, max_tokens 1000.
 */
export type AwVariant = 't3a' | 'm3a';

const LABEL = { t3a: 'androidworld-t3a', m3a: 'androidworld-m3a' } as const;
/** The action types whose index each agent checks against the element list before acting (T3A spells two with hyphens, so only its click is checked). */
const INDEX_CHECKED: Record<AwVariant, readonly string[]> = { t3a: ['click', 'long-press', 'input-text'], m3a: ['click', 'long_press', 'input_text', 'scroll'] };

function textsOf(input: Pick<AgentInput, 'texts'>, variant: AwVariant): AndroidWorldTexts {
  if (!input.texts) throw new Error(`${LABEL[variant]}: the agent's prompts were not loaded (withPromptTemplate)`);
  return input.texts;
}

function elementsText(variant: AwVariant, elements: readonly AwUiElement[], obs: Observation): string {
  switch (variant) {
    case 't3a':
      return t3aElementsText(elements, obs.screen);
    case 'm3a':
      return m3aElementsText(elements, obs.screen);
    default:
      return assertNever(variant, 'AndroidWorld agent');
  }
}

/** The agent's history lines for the earlier steps: each step's own line (summary or fixed), numbered as the agent numbers them. */
function historyOf(input: AgentInput, variant: AwVariant): string[] {
  const sep = variant === 't3a' ? ': ' : '- ';
  const lines: string[] = [];
  for (const s of input.ctx.history.slice(-input.settings.historySteps)) {
    const kept = input.memory.get(s.index)?.historyLine;
    // A step the agent did not answer (a replayed prefix): what was done, in the workbench's words.
    const line = kept !== undefined ? kept : historyLines([s], 1)[0]!.replace(/^Step \d+: /, '');
    if (line !== null) lines.push(`Step ${lines.length + 1}${sep}${line}`);
  }
  return lines;
}

/** The action request of this step (see the module comment). */
export async function androidWorldRequest(input: AgentInput, variant: AwVariant): Promise<AgentRequest> {
  const texts = textsOf(input, variant);
  const { ctx, obs } = input;
  const elements = awUiElements(obs.elements);
  const lines = historyOf(input, variant);
  const history = lines.length ? lines.join('\n') : texts.noHistory;
  const described = elementsText(variant, elements, obs) || texts.notAvailable;
  const values: Record<string, string> = variant === 't3a'
    ? { history, goal: ctx.instruction, ui_elements_description: described, additional_guidelines: '' }
    : { goal: ctx.instruction, history, ui_elements: described, additional_guidelines: '' };
  const images = new RequestImages(input.sent);
  const content: ContentPart[] = [{ type: 'text', text: pythonFormat(`${LABEL[variant]} ACTION_SELECTION_PROMPT_TEMPLATE`, texts.action, values) }];
  const shot = input.sent.get(ctx.step)?.png;
  if (variant === 'm3a' && input.settings.screenshot && shot) {
    content.push(images.part(ctx.step)!, images.marked(ctx.step, await drawSetOfMarks(shot, elements, { screen: obs.screen }), 'set-of-marks'));
  }
  return { messages: [{ role: 'user', content }], images: images.images };
}

/** What the agent does after step `prev` was taken: its fixed history line (null: M3A keeps none), or a summary call about `chosen`. */
export type AwStepOutcome = { line: string | null } | { chosen: { action: string; reason: string } };

/**
 * The agent's reading of its own reply at step `prev` (before: that step's screen), as t3a.py / m3a.py step() read it:
 * no Reason or Action → the not-formatted line; an action that is no JSONAction (or that the format refused) → the
 * not-parsed line; an index past the element list on a checked type → the out-of-range line; an action that failed
 * → the execution line (T3A: + its type; M3A keeps no line); else the summary call.
 */
export function androidWorldStepOutcome(prev: StepRecord, reply: string, before: Observation, texts: AndroidWorldTexts, variant: AwVariant): AwStepOutcome {
  const { reason, action } = parseReasonAction(reply);
  if (!reason || !action) return { line: texts.notFormatted };
  const json = agentJsonObject(action);
  if (!json || typeof json.action_type !== 'string' || prev.error?.name === 'ActionParseError') return { line: texts.notParsed };
  const index = typeof json.index === 'number' ? Math.trunc(json.index) : typeof json.index === 'string' && /^\s*\d+\s*$/.test(json.index) ? Number(json.index) : undefined;
  if (INDEX_CHECKED[variant].includes(json.action_type) && index !== undefined && index >= before.elements.length) return { line: texts.indexOutOfRange };
  if (prev.error) return { line: variant === 't3a' ? texts.executeFailed + json.action_type : null };
  return { chosen: { action, reason } };
}

/** The step's history line from its summary reply: "Action selected: <action>. <summary>" as the agent's f-string writes it. */
export function androidWorldSelectedLine(texts: AndroidWorldTexts, variant: AwVariant, action: string, summary: string): string {
  return pythonFormat(`${LABEL[variant]} summary line`, texts.selected, { action, summary });
}

/** The summary call about step `before.step`, asked on the screen after it (this step's observation). */
export async function androidWorldSummaryRequest(
  input: AgentInput, variant: AwVariant, before: { step: number; obs: Observation; screenshot?: Uint8Array | undefined }, chosen: { action: string; reason: string },
): Promise<AgentRequest> {
  const texts = textsOf(input, variant);
  const { obs } = input;
  const was = awUiElements(before.obs.elements);
  const now = awUiElements(obs.elements);
  const [b, a] = [elementsText(variant, was, before.obs), elementsText(variant, now, obs)];
  // T3A writes its stand-in for an empty list; M3A leaves it empty.
  const values: Record<string, string> = variant === 't3a'
    ? { goal: input.ctx.instruction, action: chosen.action, reason: chosen.reason, before_elements: b || texts.notAvailable, after_elements: a || texts.notAvailable }
    : { goal: input.ctx.instruction, before_elements: b, after_elements: a, action: chosen.action, reason: chosen.reason };
  const images = new RequestImages(input.sent);
  const content: ContentPart[] = [{ type: 'text', text: pythonFormat(`${LABEL[variant]} summary template`, texts.summary, values) }];
  const shot = input.sent.get(input.ctx.step)?.png;
  if (variant === 'm3a' && input.settings.screenshot && before.screenshot && shot) {
    // M3A labels a copy of the before-screenshot "before" and sends the unlabelled one; the after one is sent labelled.
    content.push(
      images.marked(before.step, await drawSetOfMarks(before.screenshot, was, { screen: before.obs.screen }), 'set-of-marks'),
      images.marked(input.ctx.step, await drawSetOfMarks(shot, now, { screen: obs.screen, afterLabel: true }), 'set-of-marks+after'),
    );
  }
  const messages: ChatMessage[] = [{ role: 'user', content }];
  return { messages, images: images.images };
}
