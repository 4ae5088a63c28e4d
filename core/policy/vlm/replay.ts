import { readFileSync } from 'node:fs';
import type { Observation } from '../../device/observation.js';
import type { PolicyContext } from '../../episode/policy.js';
import type { Completion } from './client.js';
import type { VlmFormatId } from './format.js';
import type { CoordinateSpace, GeometryContext, Size } from './geometry.js';
import { VlmPolicy } from './policy.js';
import type { ChatMessage } from './prompt.js';

/** A replies file (or text) that does not give a list of replies: unreadable, bad JSON, not strings, empty. */
export class RepliesFileError extends Error {
  override name = 'RepliesFileError';
  constructor(readonly source: string, readonly reason: string) {
    super(`Replies from ${source}: ${reason}`);
  }
}

/** The episode asked for a step past the last recorded reply: the trace is over, the task is not decided. */
export class RepliesExhaustedError extends Error {
  override name = 'RepliesExhaustedError';
  constructor(readonly replies: number, readonly step: number) {
    super(`Step ${step}: the recorded replies ran out (${replies} repl${replies === 1 ? 'y' : 'ies'}, for steps 0 to ${replies - 1})`);
  }
}

/**
 * Model replies as text: a JSON array of strings when the text starts with `[` (replies that span
 * lines), else one reply per line. Blank lines are skipped (a trailing newline is not an empty
 * reply; an empty reply is `""` in the array form).
 */
export function parseReplies(text: string, source: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  let replies: string[];
  if (body.trimStart().startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (e) {
      throw new RepliesFileError(source, `starts with "[" but is not a JSON array: ${(e as Error).message}`);
    }
    if (!Array.isArray(json)) throw new RepliesFileError(source, 'starts with "[" but is not a JSON array');
    const bad = json.findIndex((r) => typeof r !== 'string');
    if (bad >= 0) throw new RepliesFileError(source, `item ${bad} is ${JSON.stringify(json[bad])?.slice(0, 60)}, not a string`);
    replies = json as string[];
  } else {
    replies = body.split(/\r?\n/).filter((l) => l.trim() !== '');
  }
  if (!replies.length) throw new RepliesFileError(source, 'no replies (one per line, or a JSON array of strings)');
  return replies;
}

/** parseReplies of a file; a file that cannot be read is a RepliesFileError naming it. */
export function readRepliesFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new RepliesFileError(path, `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseReplies(text, path);
}

/** How recorded replies are read: the format they are in and the geometry the model answered in. */
export interface VlmReplaySettings {
  format: VlmFormatId;
  /** Default: the format's own. */
  coordinates?: CoordinateSpace | undefined;
  minPixels?: number | undefined;
  maxPixels?: number | undefined;
  /** The size of the screenshot the model saw; default: the screenshot of each step (as VlmPolicy sends it). */
  image?: Size | undefined;
  /** Recorded as the episode's policy; default `vlm-replay:<format>`. */
  name?: string | undefined;
}

/** Where a replay's requests would go: nowhere (the recorded replies answer them). */
const NO_ENDPOINT = 'http://recorded-replies.invalid/v1';

/**
 * A VLM policy whose model is a recorded trace: reply k answers step k (the step's index, so a
 * replayed prefix or an override does not shift the trace). Everything else is VlmPolicy's: each
 * reply is parsed by the format's parser on the live screen, a reply that is not an action is
 * recorded as the step's format error exactly as a served model's would be, and `thought` keeps
 * the reply verbatim. Past the last reply the episode ends with RepliesExhaustedError (a policy
 * error: a trace that stops says nothing about the task).
 */
export class VlmReplyReplay extends VlmPolicy {
  private readonly image: Size | undefined;

  constructor(readonly replies: readonly string[], s: VlmReplaySettings) {
    super({
      name: s.name ?? `vlm-replay:${s.format}`, format: s.format, endpoint: { baseUrl: NO_ENDPOINT, model: 'recorded-replies' },
      // With a fixed image size the screenshot is not needed for the geometry.
      screenshot: s.image === undefined, historySteps: 0,
      ...(s.coordinates ? { coordinates: s.coordinates } : {}),
      ...(s.minPixels !== undefined ? { minPixels: s.minPixels } : {}),
      ...(s.maxPixels !== undefined ? { maxPixels: s.maxPixels } : {}),
    });
    this.image = s.image;
  }

  override geometry(obs: Observation): GeometryContext {
    const g = super.geometry(obs);
    if (this.image) g.image = this.image;
    return g;
  }

  protected override async complete(_messages: ChatMessage[], _obs: Observation, ctx: PolicyContext): Promise<Completion> {
    const text = this.replies[ctx.step];
    if (text === undefined) throw new RepliesExhaustedError(this.replies.length, ctx.step);
    return { text, attempts: 1, latencyMs: 0, queuedMs: 0 };
  }
}
