import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import { shellCommand } from '../../../device/shell-quote.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { launch, scrollTo, type OracleUi } from '../../oracle.js';
import { clearDir, writeText } from '../../validators/files.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { condition, holds, listed, met, verdictOf, type CheckCondition } from '../../verdict.js';
import { folderPath, listDetailed } from '../files/files-helpers.js';

/**
 * A new drawing saved under a name in a folder with Simple Draw Pro (AndroidWorld's
 * SimpleDrawProCreateDrawing): draw on the canvas, Save, pick the folder, type the name without its
 * extension, pick the extension (PNG, SVG, JPG), OK.
 */
export const DRAW_PKG = 'com.simplemobiletools.draw.pro';
export const DRAW_EXTS = ['png', 'svg', 'jpg'] as const;

const Params = z.object({
  /** The file name without extension, and the extension picked in the save dialog. */
  name: z.string().min(1),
  ext: z.enum(DRAW_EXTS),
  /** A folder of shared storage ("Pictures"). */
  folder: z.string().min(1),
  /** Files the folder holds already, to stay. */
  existing: z.array(z.string()),
});
type P = z.infer<typeof Params>;

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit'];
const ADJECTIVES = ['quick', 'lazy', 'bright', 'quiet', 'brave', 'calm', 'eager', 'fancy', 'gentle', 'happy'];
const NOUNS = ['fox', 'dog', 'river', 'mountain', 'cloud', 'garden', 'forest', 'ocean', 'city', 'meadow'];

const fileOf = (p: P) => `${p.name}.${p.ext}`;

/** The drawing saved in the folder (an SVG with at least one stroke), what was there still there. */
async function savedConditions(device: Device, p: P): Promise<CheckCondition[]> {
  const entries = await listDetailed(device, folderPath(p.folder));
  const file = entries?.get(fileOf(p));
  const out: CheckCondition[] = [
    holds(`${fileOf(p)} in ${p.folder}`, file !== undefined && !file.dir && file.size > 0, { expected: 'a file', found: file ? `${file.size} bytes` : 'missing' }),
    ...p.existing.map((n) => condition(`${n} still in ${p.folder}`, 'present', entries?.has(n) ? 'present' : 'missing')),
  ];
  if (p.ext === 'svg' && file) {
    const svg = (await device.shell(shellCommand('cat', `${folderPath(p.folder)}/${fileOf(p)}`))).stdout;
    out.push(holds('the SVG holds a stroke', svg.includes('<path'), { expected: 'a <path>', found: svg.includes('<svg') ? 'no <path>' : 'not an SVG' }));
  }
  const others = [...(entries?.keys() ?? [])].filter((n) => n !== fileOf(p) && !p.existing.includes(n));
  out.push(holds(`nothing else in ${p.folder}`, others.length === 0, { expected: 'none', found: listed(others) }));
  return out;
}

export const drawOpen: Subgoal = { name: 'Simple Draw open', check: async ({ obs }) => inActivity(obs, DRAW_PKG) };

/** A straight stroke across the middle of the canvas, as a finger swipes it. */
function* stroke(ui: OracleUi): Generator<Action, void, void> {
  const b = ui.require({ resourceId: 'my_canvas' }).node.bounds;
  const [w, h] = [b.right - b.left, b.bottom - b.top];
  yield { action_type: 'swipe', start: [Math.round(b.left + w * 0.2), Math.round(b.top + h * 0.35)], end: [Math.round(b.left + w * 0.8), Math.round(b.top + h * 0.65)], duration_ms: 500 };
}

export const CreateDrawing = defineTask({
  id: 'DrawCreateDrawing',
  apps: ['Simple Draw Pro'],
  difficulty: 'medium',
  tags: ['data_entry', 'file_management', 'dialog'],
  kind: 'completion',
  template: 'Create a new drawing in Simple Draw Pro. Name it {file}. Save it in the {folder} folder.',
  params: Params,
  generate: (rng) => {
    const p = (n: number) => String(n).padStart(2, '0');
    const name = `${rng.pick(WORDS)}_${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}_2023_${p(rng.int(1, 10))}_${p(rng.int(1, 28))}`;
    const folder = rng.chance(0.7) ? 'Pictures' : rng.pick(['Download', 'Documents', 'DCIM']);
    const existing = rng.sample(['sketch_old.png', 'doodle.svg', 'notes.txt', 'plan.jpg'], rng.int(0, 2));
    return { name, ext: rng.pick(DRAW_EXTS), folder, existing };
  },
  instruction: (p) => `Create a new drawing in Simple Draw Pro. Name it ${fileOf(p)}. Save it in the ${p.folder} folder.`,
  initialize: async (device, p) => {
    await clearDir(device, folderPath(p.folder));
    for (const n of p.existing) await writeText(device, `${folderPath(p.folder)}/${n}`, `${n} kept from before\n`);
  },
  check: async (device, p) => verdictOf(await savedConditions(device, p)),
  subgoals: (p) => [
    drawOpen,
    { name: 'save dialog open', check: async ({ obs }) => onScreen(obs, { resourceId: 'save_image_filename' }) },
    { name: `folder ${p.folder} picked`, check: async ({ obs }) => onScreen(obs, { resourceId: 'save_image_path', text: `Internal/${p.folder}` }) },
    { name: 'drawing saved', check: async ({ device }) => met(await savedConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Simple Draw Pro');
    yield* stroke(ui);
    yield ui.tap({ contentDesc: 'Save' });
    if (!ui.exists({ resourceId: 'save_image_path', text: `Internal/${p.folder}` })) {
      yield ui.tap({ resourceId: 'save_image_path' });
      yield ui.tap({ text: 'Internal', resourceId: 'breadcrumb_item' });
      for (const seg of p.folder.split('/')) {
        yield ui.tap(yield* scrollTo(ui, { text: seg, resourceId: 'list_item_name' }, { within: { resourceId: 'filepicker_list' } }));
      }
      yield ui.tap({ text: 'OK' });
    }
    yield ui.type({ resourceId: 'save_image_filename' }, p.name, { clear: true });
    // The keyboard away, so the extensions and OK are not under it.
    yield ui.back();
    yield ui.tap({ resourceId: `save_image_radio_${p.ext}` });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const DRAW_TASKS: readonly TaskTemplate[] = [CreateDrawing];
