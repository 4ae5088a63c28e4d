import type { ChatMessage } from '../policy/vlm/prompt.js';

/**
 * What a VLM trainer replays of a recorded VlmPolicy episode (docs/trajectory-format.md, vlm_samples.py): each step
 * the policy wrote carries `raw` = its completion and `messages` = the chat it was sent, screenshots as image parts.
 */

/** The messages as a trainer replays them: image parts become `{"type":"image"}` (the step's screenshot is in the bundle). */
export function trainerMessages(messages: readonly ChatMessage[]): unknown[] {
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'image_url' ? { type: 'image' } : p)),
  }));
}

/**
 * An exported episode line's steps with, on each step the policy wrote (not a person's override), `raw` = the
 * completion (the store keeps the parsed action there; the completion is the step's `thought`) and `messages` = the
 * chat sent at that step (by step index; a step without one gets none).
 */
export function replayedSteps(steps: unknown, messages: ReadonlyMap<number, unknown[]>): Array<Record<string, unknown>> {
  return (steps as Array<Record<string, unknown>>).map((st) => {
    const own = st.overridden !== true && typeof st.thought === 'string';
    const m = messages.get(st.index as number);
    return { ...st, ...(own ? { raw: st.thought } : {}), ...(own && m ? { messages: m } : {}) };
  });
}
