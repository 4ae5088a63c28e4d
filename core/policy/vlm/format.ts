import { z } from 'zod';
import { ActionParseError, parseAction, type Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import { boundsCenter, hitTest, type Bounds } from '../../a11y/ui-tree.js';
import { VlmFormatError } from './errors.js';
import { type CoordinateSpace, type GeometryContext, toScreen } from './geometry.js';

export const VLM_FORMAT_IDS = ['androidworld', 'ui-tars', 'mobilerl', 'qwen-mobile-use'] as const;
export const VlmFormatId = z.enum(VLM_FORMAT_IDS);
export type VlmFormatId = z.infer<typeof VlmFormatId>;

/** What a system prompt may mention. */
export interface PromptContext {
  screen: { width: number; height: number };
  coordinates: CoordinateSpace;
  /** The frame the model answers in (e.g. 1000×1000 for relative-1000), for the prompt's wording. */
  frame: { width: number; height: number };
  withScreenshot: boolean;
  withElements: boolean;
  /** True when the task asks a question (a format may then offer its answer action). */
  expectsAnswer?: boolean | undefined;
}

/** What a parser needs: geometry, the screen (hit tests, element boxes), and whether the task asks a question. */
export interface ParseContext extends GeometryContext {
  obs?: Observation | undefined;
  /** True for information-retrieval tasks: a final message becomes an `answer`; false: `status: complete`. */
  expectsAnswer?: boolean | undefined;
}

export interface RenderContext extends GeometryContext {
  obs: Observation;
  thought?: string | undefined;
}

export interface ParsedOutput {
  action: Action;
  /** The model's reasoning, when the format has a place for it. */
  thought?: string;
}

export interface FormatSample {
  /** A realistic completion. */
  output: string;
  /** What it parses to on a 1080×2400 screen in the format's default coordinates (null: a format error). */
  action: Action | null;
  note: string;
}

/** One action format: how to ask (system prompt), how to read the answer, how to write an action in it. */
export interface ActionFormat {
  readonly id: VlmFormatId;
  readonly title: string;
  readonly description: string;
  readonly defaultCoordinates: CoordinateSpace;
  /** Whether the element list belongs in the prompt by default (index- or box-based formats). */
  readonly defaultElements: boolean;
  systemPrompt(ctx: PromptContext): string;
  /** The screen's elements as this format's model was trained to read them (absent: prompt.ts's list with indices). */
  elementsText?(obs: Observation, ctx: PromptContext): string;
  /** Throws VlmFormatError (or VlmCoordinateError) for anything that is not one valid action. */
  parse(output: string, ctx: ParseContext): ParsedOutput;
  /** The action as this format's model would write it (history, fake endpoints, docs); VlmFormatError when it cannot be said. */
  render(action: Action, ctx: RenderContext): string;
  readonly samples: readonly FormatSample[];
}

/** Checks a candidate against the workbench's action schema, turning schema issues into the format's error. */
export function finishAction(format: string, output: string, candidate: Record<string, unknown>): Action {
  try {
    return parseAction(candidate);
  } catch (e) {
    if (e instanceof ActionParseError) throw new VlmFormatError(format, output, `not a valid action: ${e.issues.join('; ')}`);
    throw e;
  }
}

export function fail(format: string, output: string, reason: string): never {
  throw new VlmFormatError(format, output, reason);
}

/** A point in the model's frame → device pixels (VlmCoordinateError off screen). */
export function screenPoint(format: string, output: string, p: readonly [number, number], ctx: ParseContext): [number, number] {
  return toScreen(format, output, p, ctx);
}

/** The finishing message as the task wants it: an answer for a question, else the task is declared complete. */
export function finishWith(message: string | undefined, ctx: ParseContext): Action {
  const text = (message ?? '').trim();
  if (ctx.expectsAnswer === true || (ctx.expectsAnswer === undefined && text)) return { action_type: 'answer', text };
  return { action_type: 'status', goal_status: 'complete' };
}

/** The device point an action touches (an index becomes its element's centre), for formats without indices. */
export function devicePoint(a: { index?: number | undefined; x?: number | undefined; y?: number | undefined }, obs: Observation, format: string): [number, number] {
  if (a.index !== undefined) {
    const el = obs.elements[a.index];
    if (!el) fail(format, JSON.stringify(a), `element ${a.index} is not on this screen`);
    const c = boundsCenter(el.node.bounds);
    return [c.x, c.y];
  }
  return [a.x!, a.y!];
}

/** The element's bounds for an index, or the element under a point (or a 2-pixel box there). */
export function deviceBox(a: { index?: number | undefined; x?: number | undefined; y?: number | undefined }, obs: Observation, format: string): Bounds {
  if (a.index !== undefined) {
    const el = obs.elements[a.index];
    if (!el) fail(format, JSON.stringify(a), `element ${a.index} is not on this screen`);
    return el.node.bounds;
  }
  const hit = hitTest(obs.elements, a.x!, a.y!);
  return hit ? hit.node.bounds : { left: a.x! - 1, top: a.y! - 1, right: a.x! + 1, bottom: a.y! + 1 };
}

/**
 * A label at the start of a line. The indent is whitespace other than newlines: with `\s*` each
 * newline's attempt ran over every blank line after it, quadratic in a reply's blank lines (100 KB
 * of them took ~30 s); a label after blank lines still matches, from the last newline.
 */
const labelAtLineStart = (label: string) => `(^|\\n)[^\\S\\n]*\\**${label}\\**\\s*[:：]`;

/** Text after the last `Label:` (case-insensitive) up to the next known label, trimmed. */
export function section(text: string, label: string, next: readonly string[] = []): string | undefined {
  const re = new RegExp(labelAtLineStart(label), 'gi');
  const all = [...text.matchAll(re)];
  if (!all.length) return undefined;
  const m = all[all.length - 1]!;
  let body = text.slice(m.index! + m[0].length);
  for (const n of next) {
    const k = body.search(new RegExp(labelAtLineStart(n), 'i'));
    if (k >= 0) body = body.slice(0, k);
  }
  return body.trim();
}
