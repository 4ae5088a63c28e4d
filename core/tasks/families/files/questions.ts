import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES } from '../../../seed-data/file-names.js';
import { answerJudged, answerOneOfCondition, answerVerdict, normalizeAnswer } from '../../validators/answers.js';
import { onScreen } from '../../validators/ui.js';
import { collectRows, drawFiles, filesOpen, folderOpen, folderPath, FOLDERS, openFolder, rowsOnScreen, SeedFile, seedFolder, stemOf } from './files-helpers.js';
import { verdictOf } from '../../verdict.js';

/** Questions answered by reading Files: how many files, which is largest, how big one is. */

const CountParams = z.object({ folder: z.string(), files: z.array(SeedFile), subfolders: z.array(z.string()) });

export const CountQuestion = defineTask({
  id: 'FilesCountQuestion',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'How many files are in the {folder} folder? Do not count sub-folders. Answer with a number.',
  params: CountParams,
  generate: (rng) => {
    const folder = rng.pick(FOLDERS);
    return { folder, files: drawFiles(rng, folder, rng.int(8, 22)), subfolders: rng.sample(FOLDER_NAMES, rng.int(1, 3)) };
  },
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), p.files, p.subfolders),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.files.length)),
  subgoals: (p) => [filesOpen, folderOpen(p.folder)],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    const rows = yield* collectRows(ui);
    yield ui.answer(String(rows.filter((r) => r.size !== null).length));
  },
});

const LargestParams = z.object({ folder: z.string(), files: z.array(SeedFile).min(2), subfolders: z.array(z.string()) });

function largest(files: readonly SeedFile[]): SeedFile {
  return files.reduce((a, b) => (b.size > a.size ? b : a));
}

export const LargestFileQuestion = defineTask({
  id: 'FilesLargestFileQuestion',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'screen_reading', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'What is the name of the largest file in the {folder} folder? Answer with the file name.',
  params: LargestParams,
  generate: (rng) => {
    const folder = rng.pick(FOLDERS);
    return { folder, files: drawFiles(rng, folder, rng.int(6, 16)), subfolders: rng.chance(0.5) ? rng.sample(FOLDER_NAMES, rng.int(1, 2)) : [] };
  },
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), p.files, p.subfolders),
  // The name with or without its extension: both name the file unambiguously.
  check: async (_device, p, episode) => {
    const want = largest(p.files).name;
    return verdictOf([answerOneOfCondition(episode.answer, [want, stemOf(want)])]);
  },
  subgoals: (p) => [
    filesOpen,
    folderOpen(p.folder),
    { name: 'sorted by size', check: async ({ obs }) => onScreen(obs, { text: largest(p.files).name }) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Sort by' });
    yield ui.tap({ text: 'Size (largest first)' });
    // Folders stay on top; the first row with a size is the largest file.
    const first = rowsOnScreen(ui).find((r) => r.size !== null);
    yield ui.answer(first?.name ?? '');
  },
});

/** Android's Formatter.formatFileSize, as the Files list shows sizes ("12.35 kB"). */
export function shownSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let v = bytes / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v < 100 ? v.toFixed(2) : v.toFixed(0)} ${units[u]}`;
}

/** The size as shown, or the exact byte count; spacing and case do not matter ("12.35KB"). */
export function sizeAnswerMatches(given: string | undefined, bytes: number): boolean {
  if (given === undefined) return false;
  const squash = (s: string) => normalizeAnswer(s).replace(/\s+/g, '').replace(/bytes?$/, 'b');
  const g = squash(given);
  return g === squash(shownSize(bytes)) || g === `${bytes}b` || g === String(bytes);
}

const SizeParams = z.object({ folder: z.string(), target: SeedFile, others: z.array(SeedFile) });

export const FileSizeQuestion = defineTask({
  id: 'FilesFileSizeQuestion',
  apps: ['Files'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What is the size of the file {name} in the {folder} folder, as the Files app shows it?',
  params: SizeParams,
  generate: (rng) => {
    const folder = rng.pick(FOLDERS);
    const files = drawFiles(rng, folder, rng.int(3, 6));
    const target = files[rng.int(0, files.length - 1)]!;
    return { folder, target, others: files.filter((f) => f !== target) };
  },
  instruction: (p) => `What is the size of the file ${p.target.name} in the ${p.folder} folder, as the Files app shows it?`,
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), [...p.others, p.target]),
  check: async (_device, p, episode) => verdictOf([answerJudged(episode.answer, shownSize(p.target.size), sizeAnswerMatches(episode.answer, p.target.size))]),
  subgoals: (p) => [filesOpen, folderOpen(p.folder)],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    const row = rowsOnScreen(ui).find((r) => r.name === p.target.name);
    yield ui.answer(row?.size ?? '');
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [CountQuestion, LargestFileQuestion, FileSizeQuestion];
