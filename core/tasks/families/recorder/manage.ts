import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { OracleError, scrollTo, screenSummary, type OracleUi } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { RECORDING_NAMES } from '../../../seed-data/file-names.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { drawRecords, openRecorder, readRecords, recorderOpen, recordingFiles, recordPath, recordsListOpen, seededIntactCondition, SeedRecord, seedRecords } from './recorder-db.js';
import { countIs, holds, met, verdictOf, type CheckCondition } from '../../verdict.js';

/** Managing recordings in the records list: delete, rename, bookmark (per-row controls and menu). */

function within(el: UiElement, ancestor: UiElement): boolean {
  for (let e: UiElement | null = el; e; e = e.parent) if (e.node === ancestor.node) return true;
  return false;
}

/** Taps a control (by resource id) in the records list row of the named recording. */
export function* tapInRow(ui: OracleUi, name: string, id: string): Generator<Action, void, void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const label = yield* scrollTo(ui, { text: name, resourceId: 'list_item_name' });
    let row: UiElement | null = label;
    while (row && !row.node.resourceId.endsWith(':id/container')) row = row.parent;
    const control = row ? ui.findAll({ resourceId: id }).find((e) => within(e, row!)) : undefined;
    if (control) {
      yield ui.tap(control);
      return;
    }
    // The row's controls are still below the edge: bring the row fully into view.
    yield ui.scroll('down', { resourceId: 'recycler_view' });
  }
  throw new OracleError(`No ${id} in the row of ${name}`, screenSummary(ui.obs));
}

function* openRecords(ui: OracleUi): Generator<Action, void, void> {
  yield* openRecorder(ui);
  yield ui.tap({ contentDesc: 'Records' });
}

const TargetParams = z.object({ seeded: z.array(SeedRecord).min(2), target: z.string() });

function drawTarget(rng: Parameters<TaskTemplate['generate']>[0]) {
  const seeded = drawRecords(rng, rng.int(4, 12));
  return { seeded, target: rng.pick(seeded).name };
}

/** The recording gone (row and file), the others as seeded. */
async function deletedConditions(device: Device, p: z.infer<typeof TargetParams>): Promise<CheckCondition[]> {
  const [rows, files] = await Promise.all([readRecords(device), recordingFiles(device)]);
  const t = p.seeded.find((s) => s.name === p.target)!;
  const left = [rows.some((r) => r.name === t.name) ? 'its row' : '', files.includes(`${t.name}.${t.format}`) ? 'its file' : ''].filter(Boolean);
  return [
    countIs('recordings', p.seeded.length - 1, rows.length),
    holds(`recording ${t.name} deleted`, left.length === 0, { expected: 'no row, no file', found: left.length ? `${left.join(' and ')} still there` : 'no row, no file' }),
    seededIntactCondition(rows, files, p.seeded, [t.name]),
  ];
}

export const DeleteRecording = defineTask({
  id: 'AudioRecorderDeleteRecording',
  apps: ['Audio Recorder'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the recording "{target}" in Audio Recorder.',
  params: TargetParams,
  generate: drawTarget,
  initialize: async (device, p) => seedRecords(device, p.seeded),
  check: async (device, p) => verdictOf(await deletedConditions(device, p)),
  subgoals: (p) => [
    recorderOpen,
    recordsListOpen,
    { name: 'delete confirmation shown', check: async ({ obs }) => onScreen(obs, { text: `Delete record ${p.target} forever?` }) },
    { name: 'recording deleted', check: async ({ device }) => met(await deletedConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openRecords(ui);
    yield* tapInRow(ui, p.target, 'btn_more');
    yield ui.tap({ text: 'Delete' });
    yield ui.tap({ text: 'Delete', resourceId: 'dialog_positive_btn' });
    yield ui.complete();
  },
});

const RenameParams = TargetParams.extend({ newName: z.string().min(1) });

/** The recording under its new name (row and file, length and format kept), the old name gone, the others as seeded. */
async function renamedConditions(device: Device, p: z.infer<typeof RenameParams>): Promise<CheckCondition[]> {
  const [rows, files] = await Promise.all([readRecords(device), recordingFiles(device)]);
  const t = p.seeded.find((s) => s.name === p.target)!;
  const row = rows.find((r) => r.name === p.newName);
  const rowOk = row !== undefined && row.duration === t.durationMs && row.format === t.format && row.path === recordPath(p.newName, t.format);
  const rowWords = row === undefined ? `no recording named ${p.newName}`
    : [row.duration === t.durationMs ? '' : `duration ${row.duration} ms`, row.format === t.format ? '' : `format ${row.format}`, row.path === recordPath(p.newName, t.format) ? '' : `path ${row.path}`].filter(Boolean).join(', ') || 'renamed';
  const oldLeft = [rows.some((r) => r.name === t.name) ? 'its row' : '', files.includes(`${t.name}.${t.format}`) ? 'its file' : ''].filter(Boolean);
  return [
    countIs('recordings', p.seeded.length, rows.length),
    holds(`recording ${t.name} renamed to ${p.newName}`, rowOk, { expected: 'renamed', found: rowWords }),
    holds(`file ${p.newName}.${t.format} present`, files.includes(`${p.newName}.${t.format}`), { expected: 'present', found: files.includes(`${p.newName}.${t.format}`) ? 'present' : 'missing' }),
    holds(`old name ${t.name} gone`, oldLeft.length === 0, { expected: 'gone', found: oldLeft.length ? `${oldLeft.join(' and ')} still there` : 'gone' }),
    seededIntactCondition(rows, files, p.seeded, [t.name]),
  ];
}

export const RenameRecording = defineTask({
  id: 'AudioRecorderRenameRecording',
  apps: ['Audio Recorder'],
  difficulty: 'medium',
  tags: ['data_edit', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Rename the recording "{target}" to "{newName}" in Audio Recorder.',
  params: RenameParams,
  generate: (rng) => {
    const { seeded, target } = drawTarget(rng);
    const taken = seeded.map((s) => s.name);
    const newName = rng.chance(0.5) ? `${target} ${rng.int(2, 9)}` : rng.pick(RECORDING_NAMES.filter((n) => !taken.includes(n)));
    return { seeded, target, newName };
  },
  initialize: async (device, p) => seedRecords(device, p.seeded),
  check: async (device, p) => verdictOf(await renamedConditions(device, p)),
  subgoals: (p) => [
    recorderOpen,
    recordsListOpen,
    { name: 'rename dialog open', check: async ({ obs }) => onScreen(obs, { text: 'New name', resourceId: 'android:id/alertTitle' }) },
    { name: 'new name typed', check: async ({ obs }) => fieldHolds(obs, p.newName) },
    { name: 'recording renamed', check: async ({ device }) => met(await renamedConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openRecords(ui);
    yield* tapInRow(ui, p.target, 'btn_more');
    yield ui.tap({ text: 'Rename' });
    yield ui.type({ resourceId: 'input_name' }, p.newName, { clear: true });
    yield ui.tap({ text: 'Save' });
    yield ui.complete();
  },
});

/** The recording bookmarked, the others as seeded. */
async function bookmarkedConditions(device: Device, p: z.infer<typeof TargetParams>): Promise<CheckCondition[]> {
  const [rows, files] = await Promise.all([readRecords(device), recordingFiles(device)]);
  const row = rows.find((r) => r.name === p.target);
  const others = p.seeded.filter((s) => s.name !== p.target);
  return [
    countIs('recordings', p.seeded.length, rows.length),
    holds(`recording ${p.target} bookmarked`, row?.bookmark === 1, { expected: 'bookmarked', found: row === undefined ? 'no such recording' : row.bookmark === 1 ? 'bookmarked' : 'not bookmarked' }),
    seededIntactCondition(rows, files, others),
  ];
}

export const BookmarkRecording = defineTask({
  id: 'AudioRecorderBookmarkRecording',
  apps: ['Audio Recorder'],
  difficulty: 'easy',
  tags: ['toggle', 'needs_scrolling'],
  kind: 'completion',
  template: 'Bookmark the recording "{target}" in Audio Recorder.',
  params: TargetParams,
  generate: (rng) => {
    const { seeded, target } = drawTarget(rng);
    return { seeded: seeded.map((s) => (s.name === target ? { ...s, bookmark: false } : s)), target };
  },
  initialize: async (device, p) => seedRecords(device, p.seeded),
  check: async (device, p) => verdictOf(await bookmarkedConditions(device, p)),
  subgoals: (p) => [recorderOpen, recordsListOpen, { name: 'bookmarked', check: async ({ device }) => met(await bookmarkedConditions(device, p)) }],
  *oracle(p, ui) {
    yield* openRecords(ui);
    yield* tapInRow(ui, p.target, 'bookmark');
    yield ui.complete();
  },
});

export const MANAGE_TASKS: readonly TaskTemplate[] = [DeleteRecording, RenameRecording, BookmarkRecording];
