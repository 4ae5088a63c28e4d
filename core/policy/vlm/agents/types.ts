import type { Observation } from '../../../device/observation.js';
import type { PolicyContext } from '../../../episode/policy.js';
import type { StepRecord } from '../../../episode/record.js';
import { VlmFormatError } from '../errors.js';
import type { ActionFormat, PromptContext } from '../format.js';
import type { GeometryContext } from '../geometry.js';
import { historyLines, pngDataUrl, type ChatMessage, type ContentPart, type ImageSource, type PastTurn, type RequestImageSources } from '../prompt.js';
import type { ImageMarks } from '../../../episode/record.js';
import type { AndroidWorldTexts, LoadedTool, VlmPolicySettings } from '../settings.js';

/** A screenshot as an agent sends it: the PNG (resized when the agent resizes) and its size when that differs from the step's. */
export interface SentImage {
  png: Uint8Array;
  width?: number;
  height?: number;
}

/** What an official agent's request builder gets: the step, the policy's memory of its own earlier steps, the loaded prompt. */
export interface AgentInput {
  format: ActionFormat;
  prompt: PromptContext;
  geometry: GeometryContext;
  obs: Observation;
  ctx: PolicyContext;
  settings: VlmPolicySettings;
  memory: ReadonlyMap<number, PastTurn>;
  /** Each step's screenshot as this agent sends it (this step's and the remembered ones'), by step index. */
  sent: ReadonlyMap<number, SentImage>;
  template?: { label: string; text: string; language: string } | undefined;
  tool?: LoadedTool | undefined;
  /** AndroidWorld's agents: the texts read from t3a.py or m3a.py. */
  texts?: AndroidWorldTexts | undefined;
}

export interface AgentRequest {
  messages: ChatMessage[];
  /** Each image data URL of the messages → the step it shows (the store records the request by reference). */
  images: RequestImageSources;
}

/** Collects the request's images: each step's sent screenshot as an image part, remembered for the record. */
export class RequestImages {
  readonly images = new Map<string, ImageSource[]>();
  constructor(private readonly sent: ReadonlyMap<number, SentImage>) {}

  /** The image part of step `k`'s screenshot, or undefined when that step's screenshot is not known. */
  part(k: number, extra: Record<string, unknown> = {}): ContentPart | undefined {
    const s = this.sent.get(k);
    if (!s) return undefined;
    const url = pngDataUrl(s.png);
    const src = { step: k, ...(s.width !== undefined && s.height !== undefined ? { width: s.width, height: s.height } : {}) };
    this.images.set(url, [...(this.images.get(url) ?? []), src]);
    return { type: 'image_url', image_url: { url }, ...extra } as ContentPart;
  }

  /** The image part of a picture the agent drew on step `k`'s screenshot (AndroidWorld's M3A: its set-of-marks). */
  marked(k: number, png: Uint8Array, marks: ImageMarks): ContentPart {
    const url = pngDataUrl(png);
    this.images.set(url, [...(this.images.get(url) ?? []), { step: k, marks }]);
    return { type: 'image_url', image_url: { url } };
  }
}

/**
 * What the model said at an earlier step, as its own agent keeps it: its completion; for a step a person overrode
 * (or a replayed prefix), the action written in the model's format, since the official agents only ever hold the
 * model's own replies; a prose line when even that cannot be said.
 */
export function pastReply(s: StepRecord, memory: ReadonlyMap<number, PastTurn>, input: Pick<AgentInput, 'format' | 'geometry'>): string {
  const mine = s.overridden ? undefined : memory.get(s.index);
  if (mine) return mine.completion;
  const obs = memory.get(s.index)?.obs;
  if (s.action && obs) {
    try {
      return input.format.render(s.action, { ...input.geometry, obs });
    } catch (e) {
      if (!(e instanceof VlmFormatError)) throw e;
    }
  }
  return historyLines([s], 1)[0]!;
}
