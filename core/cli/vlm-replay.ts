import { resolve } from 'node:path';
import { PolicySpecSchema, type PolicySpec } from '../policy/registry.js';
import { vlmFormat } from '../policy/vlm/formats/index.js';
import type { CoordinateSpace, Size } from '../policy/vlm/geometry.js';
import { readRepliesFile, RepliesFileError } from '../policy/vlm/replay.js';
import { loadTrajectory, type EpisodeId, type ReadableDB } from '../store/index.js';
import type { TaskInstance } from '../tasks/instance.js';
import { formatIssues } from '../util/zod-issues.js';
import { UsageError } from './args.js';

export interface VlmReplayFlags {
  format?: string | undefined;
  coordinates?: CoordinateSpace | undefined;
  'min-pixels'?: number | undefined;
  'max-pixels'?: number | undefined;
  replies?: string | undefined;
  from?: number | undefined;
  image?: Size | undefined;
}

/**
 * A recorded episode's model replies: each step's `thought`, where VlmPolicy keeps the completion
 * verbatim (a format error's step too). An episode of another task, or a step without one (not a
 * VLM episode), is refused.
 */
export function episodeReplies(db: ReadableDB, id: number, instance: TaskInstance): string[] {
  const t = loadTrajectory(db, id as EpisodeId);
  if (t.instance.templateId !== instance.template.id || t.instance.seed !== instance.seed) {
    throw new UsageError(`Episode ${id} is ${t.instance.templateId} seed ${t.instance.seed}, not ${instance.template.id} seed ${instance.seed}`);
  }
  const missing = t.steps.find((s) => s.thought === undefined);
  if (missing) throw new RepliesFileError(`episode ${id}`, `step ${missing.index} has no recorded model reply (thought): not a VLM episode`);
  if (!t.steps.length) throw new RepliesFileError(`episode ${id}`, 'no steps');
  return t.steps.map((s) => s.thought!);
}

/** `awb run --policy vlm-replay`: the replies from --replies FILE or --from EPISODE, read as --format says. */
export function vlmReplaySpec(v: VlmReplayFlags, db: () => ReadableDB, instance: TaskInstance): PolicySpec & { name: 'vlm-replay' } {
  if (!v.format) throw new UsageError('--policy vlm-replay needs --format F: the format the replies are in');
  const format = vlmFormat(v.format).id;
  if ((v.replies === undefined) === (v.from === undefined)) {
    throw new UsageError('--policy vlm-replay needs one of --replies FILE (one reply per line, or a JSON array) and --from EPISODE (its model replies)');
  }
  const replies = v.replies !== undefined ? readRepliesFile(resolve(v.replies)) : episodeReplies(db(), v.from!, instance);
  const spec = {
    name: 'vlm-replay' as const, replies, format,
    ...(v.coordinates ? { coordinates: v.coordinates } : {}),
    ...(v['min-pixels'] !== undefined ? { minPixels: v['min-pixels'] } : {}),
    ...(v['max-pixels'] !== undefined ? { maxPixels: v['max-pixels'] } : {}),
    ...(v.image ? { image: v.image } : {}),
  };
  const r = PolicySpecSchema.safeParse(spec);
  if (!r.success) throw new UsageError(`--policy vlm-replay: ${formatIssues(r.error.issues)}`);
  return spec;
}
