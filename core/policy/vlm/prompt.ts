import type { Observation } from '../../device/observation.js';
import { appByPackage } from '../../device/app-catalog.js';
import type { PolicyContext } from '../../episode/policy.js';
import type { StepRecord } from '../../episode/record.js';
import { formatBounds } from '../../ui/ui-tree.js';
import type { ActionFormat, PromptContext } from './format.js';

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
}

/** system prompt + one user turn: task, history, current app, elements (optional), screenshot (optional). */
export function buildMessages(format: ActionFormat, prompt: PromptContext, obs: Observation, ctx: PolicyContext, o: PromptOptions): ChatMessage[] {
  const app = appByPackage(obs.foreground.package)?.name ?? obs.foreground.package;
  const past = historyLines(ctx.history, o.historySteps);
  const text = [
    `Task: ${ctx.instruction}`,
    '',
    past.length ? `Previous steps:\n${past.join('\n')}` : 'Previous steps: none (this is the first step).',
    '',
    `Current app: ${app || 'unknown'}`,
    ...(o.withElements ? ['', 'UI elements on the screen:', elementsText(obs)] : []),
    '',
    o.withScreenshot ? 'The screenshot of the current screen follows. What is the next action?' : 'What is the next action?',
  ].join('\n');
  const content: ContentPart[] = [{ type: 'text', text }];
  if (o.withScreenshot && obs.screenshot) content.push({ type: 'image_url', image_url: { url: pngDataUrl(obs.screenshot) } });
  return [
    { role: 'system', content: format.systemPrompt(prompt) },
    { role: 'user', content },
  ];
}
