import { flattenUiTree, parseUiTree } from '../a11y/ui-tree.js';
import type { Action } from '../actions/schema.js';
import type { Observation } from '../device/observation.js';
import type { RecordedRequest } from '../episode/record.js';
import { VlmFormatError } from '../policy/vlm/errors.js';
import { vlmFormat } from '../policy/vlm/formats/index.js';
import { CoordinateSpace, pngSize } from '../policy/vlm/geometry.js';
import { VlmFormatId } from '../policy/vlm/format.js';
import type { ReadableDB } from '../store/db.js';
import { getScreenshot, getTree } from '../store/content.js';
import type { EpisodeId } from '../store/ids.js';
import { loadTrajectory } from '../store/trajectory.js';

/**
 * What a VLM trainer learns from a recorded episode (docs/jobs.md "vlm kinds", vlm_samples.py): each step a VLM
 * policy decided carries `messages` = the request it was sent (the store's `request`, images naming the steps whose
 * screenshots they show) and `raw` = the reply to learn: the model's own completion, or, for a step a person
 * overrode, the override written in the model's format (its `render`), so SFT teaches the model its own output
 * format. A step with nothing to learn (not a VLM policy's, or an override the format cannot say) gets
 * `train: false`: it stays in the line, since later steps' requests may show its screenshot.
 */

export interface TrainingSteps {
  steps: Array<Record<string, unknown>>;
  /** Steps that are trained on: the model's replies and the overrides written in its format. */
  replies: number;
  overrides: number;
  /** Steps left out, with why (one line each). */
  skipped: string[];
}

interface LineStep {
  index: number;
  thought?: string | null;
  overridden?: boolean;
  action?: Action | null;
  request?: RecordedRequest | null;
}

/** The exported steps of episode `id` with what a trainer replays on each (see the module comment). */
export function trainingSteps(db: ReadableDB, id: EpisodeId, lineSteps: readonly Record<string, unknown>[]): TrainingSteps {
  let stored: ReturnType<typeof loadTrajectory> | undefined;
  const out: TrainingSteps = { steps: [], replies: 0, overrides: 0, skipped: [] };
  for (const raw of lineSteps) {
    const st = raw as unknown as LineStep;
    const skip = (why: string) => {
      out.skipped.push(`episode ${id} step ${st.index}: ${why}`);
      out.steps.push({ ...raw, train: false });
    };
    if (!st.request) {
      skip('no recorded VLM request (not decided by a VLM policy)');
      continue;
    }
    if (drawnOn(st.request)) {
      skip('its request shows a screenshot with marks drawn on it (androidworld-m3a\'s set-of-marks), which the trainer does not draw');
      continue;
    }
    if (st.overridden) {
      if (!st.action) {
        skip('an override without an action');
        continue;
      }
      stored ??= loadTrajectory(db, id);
      const text = renderOverride(db, stored, st.index, st.action, st.request);
      if (typeof text !== 'string') {
        skip(text.error);
        continue;
      }
      out.overrides++;
      out.steps.push({ ...raw, raw: text, messages: st.request.messages });
      continue;
    }
    if (typeof st.thought !== 'string') {
      skip('no recorded reply');
      continue;
    }
    out.replies++;
    out.steps.push({ ...raw, raw: st.thought, messages: st.request.messages });
  }
  return out;
}

/** Whether an image of the request is a picture the agent drew on a screenshot (not the stored screenshot itself). */
function drawnOn(request: RecordedRequest): boolean {
  return request.messages.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === 'image' && p.marks !== undefined));
}

/**
 * The override as the model would have written it on that step's screen: the format's render with the step's
 * stored tree (element indices become points or boxes there) and the coordinate frame of the request's image.
 */
function renderOverride(db: ReadableDB, t: ReturnType<typeof loadTrajectory>, index: number, action: Action, request: RecordedRequest): string | { error: string } {
  const step = t.steps.find((s) => s.index === index);
  const format = VlmFormatId.safeParse(request.format);
  const coordinates = CoordinateSpace.safeParse(request.coordinates);
  if (!step?.tree || !format.success || !coordinates.success) return { error: 'the override cannot be written in the format (no stored screen, or an unknown format)' };
  const tree = parseUiTree(getTree(db, step.tree));
  // The screen is the roots' extent (the window manager's root spans it; density does not matter to a render).
  const screen = { width: Math.max(...tree.roots.map((r) => r.bounds.right)), height: Math.max(...tree.roots.map((r) => r.bounds.bottom)), density: 0 };
  const obs: Observation = { screen, tree, elements: flattenUiTree(tree), foreground: step.foreground };
  const shot = step.screenshot ? getScreenshot(db, step.screenshot) : undefined;
  const part = request.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).findLast((p) => p.type === 'image' && p.step === index);
  const image = part?.type === 'image' && part.width && part.height ? { width: part.width, height: part.height } : shot ? pngSize(shot) : undefined;
  try {
    return vlmFormat(format.data).render(action, {
      screen, coordinates: coordinates.data, obs, ...(image ? { image } : {}),
      ...(request.minPixels !== undefined ? { minPixels: request.minPixels } : {}), ...(request.maxPixels !== undefined ? { maxPixels: request.maxPixels } : {}),
    });
  } catch (e) {
    if (e instanceof VlmFormatError) return { error: `the override cannot be written in ${format.data}: ${e.reason}` };
    throw e;
  }
}
