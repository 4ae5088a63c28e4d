import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import { launch } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { clearDir, listDir, SDCARD, writeText } from '../../validators/files.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { condition, holds, met, verdictOf, type CheckCondition } from '../../verdict.js';
import { DAY_MS, DEVICE_NOW } from '../../../seed-data/dates.js';
import type { Rng } from '../../../util/rng.js';

/**
 * Camera: take one photo, take one video (AndroidWorld's CameraTakePhoto and CameraTakeVideo).
 * The camera writes IMG_….jpg under Pictures and VID_….mp4 under Movies; AndroidWorld's checks
 * count the names new in those folders. Our seeding leaves earlier captures there (AndroidWorld
 * empties the folders), so "one new file" is checked against files already present.
 */
export const CAMERA_PKG = 'com.android.camera2';
export const PICTURES = `${SDCARD}/Pictures`;
export const MOVIES = `${SDCARD}/Movies`;

const Capture = z.object({
  /** Earlier captures left in the folders (file names). */
  photos: z.array(z.string()),
  videos: z.array(z.string()),
  /** How long the oracle records, seconds. */
  seconds: z.int().min(1).max(30),
});
type Capture = z.infer<typeof Capture>;

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** Earlier captures: distinct names from the past weeks, as the camera names them. */
function earlier(rng: Rng, prefix: 'IMG' | 'VID', ext: string, n: number): string[] {
  const names = new Set<string>();
  while (names.size < n) names.add(`${prefix}_${stamp(DEVICE_NOW - rng.int(1, 40) * DAY_MS + rng.int(0, 86_399) * 1000)}.${ext}`);
  return [...names].sort();
}

function generate(rng: Rng): Capture {
  return { photos: earlier(rng, 'IMG', 'jpg', rng.int(0, 4)), videos: earlier(rng, 'VID', 'mp4', rng.int(0, 3)), seconds: rng.int(2, 6) };
}

async function initialize(device: Device, p: Capture): Promise<void> {
  await clearDir(device, PICTURES);
  await clearDir(device, MOVIES);
  for (const n of p.photos) await writeText(device, `${PICTURES}/${n}`, 'earlier photo');
  for (const n of p.videos) await writeText(device, `${MOVIES}/${n}`, 'earlier video');
}

/** Exactly one new file of the kind in its folder, named as the camera names it; the earlier ones kept; none of the other kind. */
async function captureConditions(device: Device, p: Capture, kind: 'photo' | 'video'): Promise<CheckCondition[]> {
  const [photos, videos] = await Promise.all([listDir(device, PICTURES), listDir(device, MOVIES)]);
  const [dir, seeded, pattern, otherDir, otherSeeded] = kind === 'photo'
    ? [photos ?? [], p.photos, /^IMG_\d{8}_\d{6}(_\d+)?\.jpg$/, videos ?? [], p.videos]
    : [videos ?? [], p.videos, /^VID_\d{8}_\d{6}(_\d+)?\.mp4$/, photos ?? [], p.photos];
  const added = dir.filter((n) => !seeded.includes(n));
  const otherAdded = otherDir.filter((n) => !otherSeeded.includes(n));
  return [
    condition(`new ${kind}s`, '1', String(added.length)),
    ...(added.length === 1 ? [holds(`new ${kind} named by the camera`, pattern.test(added[0]!), { found: added[0]! })] : []),
    holds(`earlier ${kind}s kept`, seeded.every((n) => dir.includes(n)), { expected: seeded.join(', ') || '(none)', found: dir.join(', ') || '(none)' }),
    condition(`new ${kind === 'photo' ? 'video' : 'photo'}s`, '0', String(otherAdded.length)),
  ];
}

const cameraOpen: Subgoal = { name: 'Camera open', check: async ({ obs }) => inActivity(obs, CAMERA_PKG) };

export const TakePhoto = defineTask({
  id: 'CameraTakePhoto',
  apps: ['Camera'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Take one photo.',
  params: Capture,
  generate,
  initialize,
  check: async (device, p) => verdictOf(await captureConditions(device, p, 'photo')),
  subgoals: (p) => [cameraOpen, { name: 'photo taken', check: async ({ device }) => met(await captureConditions(device, p, 'photo')) }],
  *oracle(_p, ui) {
    yield* launch(ui, 'Camera');
    // The camera may have been left in video mode.
    if (!ui.exists({ contentDesc: 'Shutter' })) yield ui.tap({ text: 'Camera' });
    yield ui.tap({ contentDesc: 'Shutter' });
    yield ui.complete();
  },
});

export const TakeVideo = defineTask({
  id: 'CameraTakeVideo',
  apps: ['Camera'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Take one video.',
  params: Capture,
  generate,
  initialize,
  check: async (device, p) => verdictOf(await captureConditions(device, p, 'video')),
  subgoals: (p) => [
    cameraOpen,
    { name: 'video mode', check: async ({ obs }) => onScreen(obs, { contentDesc: 'Start recording' }) || onScreen(obs, { contentDesc: 'Stop recording' }) },
    { name: 'recording', check: async ({ obs }) => onScreen(obs, { contentDesc: 'Stop recording' }) },
    { name: 'video saved', check: async ({ device }) => met(await captureConditions(device, p, 'video')) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Camera');
    if (!ui.exists({ contentDesc: 'Start recording' })) yield ui.tap({ text: 'Video' });
    yield ui.tap({ contentDesc: 'Start recording' });
    yield { action_type: 'wait', seconds: p.seconds };
    yield ui.tap({ contentDesc: 'Stop recording' });
    yield ui.complete();
  },
});

export const CAMERA_TASKS: readonly TaskTemplate[] = [TakePhoto, TakeVideo];
