import type { Observation } from '../../device/observation.js';
import { appByPackage } from '../../device/app-catalog.js';
import type { PolicyContext } from '../../episode/policy.js';
import type { ImageMarks, RecordedMessage, RecordedPart, StepRecord } from '../../episode/record.js';
import { formatBounds } from '../../a11y/ui-tree.js';
import { assertNever } from '../../util/errors.js';
import type { ActionFormat, PromptContext } from './format.js';
import { fillTemplate, templatePlaceholders } from './prompt-template.js';

/** OpenAI chat-completions content parts (the subset vLLM and SGLang accept for VLMs). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

export function pngDataUrl(png: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64')}`;
}

/**
 * The screen's elements as text, one per line with the index actions use and the bounds boxes use:
 * `[12] Button "Save" (click) [900,2100][1040,2240]`. Only elements worth acting on or reading.
 */
export function elementsText(obs: Observation): string {
  const lines: string[] = [];
  for (const e of obs.elements) {
    const n = e.node;
    const label = n.text || n.contentDesc;
    const editable = n.className === 'android.widget.EditText';
    if (!label && !n.clickable && !n.scrollable && !editable && !n.longClickable) continue;
    const flags = [
      n.clickable ? 'click' : '', n.longClickable ? 'long-click' : '', n.scrollable ? 'scroll' : '', editable ? 'edit' : '',
      n.checkable ? (n.checked ? 'checked' : 'unchecked') : '', n.focused ? 'focused' : '', n.enabled ? '' : 'disabled',
    ].filter(Boolean);
    const cls = n.className.split('.').pop();
    const text = label ? ` ${JSON.stringify(label.length > 80 ? `${label.slice(0, 79)}…` : label)}` : '';
    lines.push(`[${e.ordinal}] ${cls}${text}${flags.length ? ` (${flags.join(', ')})` : ''} ${formatBounds(n.bounds)}`);
  }
  return lines.join('\n');
}

/** One line per earlier step: what it did, or why it failed. */
export function historyLines(history: readonly StepRecord[], k: number): string[] {
  if (k === 0) return [];
  return history.slice(-k).map((s) => {
    const what = s.description ?? (s.action ? JSON.stringify(s.action) : 'output that was not an action');
    return `Step ${s.index + 1}: ${what}${s.error ? ` (failed: ${s.error.name}: ${s.error.message.slice(0, 160)})` : ''}`;
  });
}

export interface PromptOptions {
  withScreenshot: boolean;
  withElements: boolean;
  historySteps: number;
  /** 'summary': one text line per earlier step; 'turns': earlier steps as user/assistant turns (UI-TARS, Qwen agents). */
  historyStyle: 'summary' | 'turns';
  /** With 'turns': how many of the latest earlier turns carry their screenshot. */
  historyImages: number;
  /** The model's own prompt (prompt-template.ts), loaded: it replaces the format's system prompt. */
  template?: { label: string; text: string; language: string } | undefined;
  /** Told of each image part as it is added, with the step whose screenshot it is (the policy records the request by it). */
  onImage?: ((url: string, step: number) => void) | undefined;
}

/** An image part of step `step`'s screenshot, reported to onImage. */
function imagePart(png: Uint8Array, step: number, o: PromptOptions): ContentPart {
  const url = pngDataUrl(png);
  o.onImage?.(url, step);
  return { type: 'image_url', image_url: { url } };
}

/** What the policy remembers of its own earlier steps in this episode (turns history). */
export interface PastTurn {
  completion: string;
  screenshot?: Uint8Array | undefined;
  /** The step's screen (official agents: to write a person's override there in the model's format). */
  obs?: Observation | undefined;
  /** The screenshot as the agent sent it (resized where the agent resizes). */
  sent?: { png: Uint8Array; width?: number; height?: number } | undefined;
  /**
   * The step's line in an agent's own history, once the agent wrote it (AndroidWorld's agents: its summary); null when
   * that agent keeps no line for the step.
   */
  historyLine?: string | null | undefined;
}

function currentTurn(obs: Observation, ctx: PolicyContext, o: PromptOptions, past: string[], elements: () => string): ContentPart[] {
  const app = appByPackage(obs.foreground.package)?.name ?? obs.foreground.package;
  const text = [
    `Task: ${ctx.instruction}`,
    '',
    ...(o.historyStyle === 'summary' ? [past.length ? `Previous steps:\n${past.join('\n')}` : 'Previous steps: none (this is the first step).', ''] : []),
    `Current app: ${app || 'unknown'}`,
    ...(o.withElements ? ['', 'UI elements on the screen:', elements()] : []),
    '',
    o.withScreenshot ? 'The screenshot of the current screen follows. What is the next action?' : 'What is the next action?',
  ].join('\n');
  const content: ContentPart[] = [{ type: 'text', text }];
  if (o.withScreenshot && obs.screenshot) content.push(imagePart(obs.screenshot, ctx.step, o));
  return content;
}

/**
 * Earlier steps as turns: a user turn (the step's screenshot for the latest `historyImages`) and the
 * assistant's completion as the model wrote it. A step the policy did not write (a person's override,
 * a replayed prefix) is told in words instead, so the model is not shown text it never produced.
 */
function pastTurns(ctx: PolicyContext, o: PromptOptions, memory: ReadonlyMap<number, PastTurn>): ChatMessage[] {
  const steps = o.historySteps === 0 ? [] : ctx.history.slice(-o.historySteps);
  const out: ChatMessage[] = [];
  steps.forEach((s, k) => {
    const mine = s.overridden ? undefined : memory.get(s.index);
    const withImage = o.withScreenshot && mine?.screenshot && k >= steps.length - o.historyImages;
    const user: ContentPart[] = [{ type: 'text', text: `Step ${s.index + 1}.` }];
    if (withImage) user.push(imagePart(mine.screenshot!, s.index, o));
    out.push({ role: 'user', content: user });
    const [line] = historyLines([s], 1);
    out.push({ role: 'assistant', content: mine ? mine.completion : `(${line})` });
    if (mine && s.error) out.push({ role: 'user', content: `That step failed: ${s.error.name}: ${s.error.message.slice(0, 160)}` });
  });
  return out;
}

/**
 * The request's messages: the format's system prompt, then either one user turn (task, history as
 * lines, current app, elements, screenshot) or, with historyStyle 'turns', the earlier steps as
 * user/assistant turns before the current one. With a prompt template, see templateMessages.
 */
export function buildMessages(format: ActionFormat, prompt: PromptContext, obs: Observation, ctx: PolicyContext, o: PromptOptions, memory: ReadonlyMap<number, PastTurn> = new Map()): ChatMessage[] {
  if (o.template) return templateMessages(o.template, prompt, obs, ctx, o, memory);
  const system: ChatMessage = { role: 'system', content: format.systemPrompt(prompt) };
  const elements = () => (format.elementsText ? format.elementsText(obs, prompt) : elementsText(obs));
  switch (o.historyStyle) {
    case 'summary':
      return [system, { role: 'user', content: currentTurn(obs, ctx, o, historyLines(ctx.history, o.historySteps), elements) }];
    case 'turns':
      return [system, ...pastTurns(ctx, o, memory), { role: 'user', content: currentTurn(obs, ctx, o, [], elements) }];
    default:
      return assertNever(o.historyStyle, 'history style');
  }
}

/**
 * The shape of UI-TARS's own agents: no system turn of ours (the server's chat template adds its
 * default), the filled template as the first user turn, then the screenshot. 'summary' puts both in
 * one turn (history in {history}, or as lines after the template when it has no such placeholder);
 * 'turns' sends the template alone, the earlier steps as turns, then the current screenshot.
 */
function templateMessages(t: NonNullable<PromptOptions['template']>, prompt: PromptContext, obs: Observation, ctx: PolicyContext, o: PromptOptions, memory: ReadonlyMap<number, PastTurn>): ChatMessage[] {
  const lines = o.historyStyle === 'summary' ? historyLines(ctx.history, o.historySteps) : [];
  const text = fillTemplate(t.label, t.text, {
    instruction: ctx.instruction,
    language: t.language,
    history: lines.join('\n'),
    app: appByPackage(obs.foreground.package)?.name ?? obs.foreground.package,
    screen_width: String(prompt.screen.width),
    screen_height: String(prompt.screen.height),
    frame_width: String(prompt.frame.width),
    frame_height: String(prompt.frame.height),
  });
  const current: ContentPart[] = [];
  if (lines.length && !templatePlaceholders(t.label, t.text).has('history')) current.push({ type: 'text', text: `Previous steps:\n${lines.join('\n')}` });
  if (o.withElements) current.push({ type: 'text', text: `UI elements on the screen:\n${elementsText(obs)}` });
  if (o.withScreenshot && obs.screenshot) current.push(imagePart(obs.screenshot, ctx.step, o));
  switch (o.historyStyle) {
    case 'summary':
      return [{ role: 'user', content: [{ type: 'text', text }, ...current] }];
    case 'turns':
      return [
        { role: 'user', content: [{ type: 'text', text }] },
        ...pastTurns(ctx, o, memory),
        { role: 'user', content: current.length ? current : [{ type: 'text', text: 'What is the next action?' }] },
      ];
    default:
      return assertNever(o.historyStyle, 'history style');
  }
}

/**
 * Where an image of a request came from: the step whose screenshot it is, the size it was sent at when resized, and
 * what the agent drew on it (AndroidWorld's M3A).
 */
export interface ImageSource {
  step: number;
  width?: number;
  height?: number;
  marks?: ImageMarks;
}

/** A request image that is none of the screenshots the policy knows of (a request builder's bug, not the user's). */
export class UnknownRequestImageError extends Error {
  override name = 'UnknownRequestImageError';
  constructor(readonly message_: number) {
    super(`Message ${message_} of the request has an image that is not a screenshot of this episode`);
  }
}

/**
 * Each image data URL of a request → the steps it shows, in the order their parts appear (two steps whose screens did
 * not change have the same URL: the first part is the earlier step).
 */
export type RequestImageSources = ReadonlyMap<string, readonly ImageSource[]>;

/** The request as the store keeps it: each image part replaced by the step it shows (its bytes are that step's screenshot). */
export function recordedMessages(messages: readonly ChatMessage[], images: RequestImageSources): RecordedMessage[] {
  const seen = new Map<string, number>();
  return messages.map((m, k) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.map((p): RecordedPart => {
      if (p.type === 'text') return { type: 'text', text: p.text };
      const url = p.image_url.url;
      const sources = images.get(url);
      if (!sources?.length) throw new UnknownRequestImageError(k);
      const i = seen.get(url) ?? 0;
      seen.set(url, i + 1);
      return { type: 'image', ...sources[Math.min(i, sources.length - 1)]! };
    }),
  }));
}
