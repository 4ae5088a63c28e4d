import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES, NOTE_SENTENCES, TODO_ITEMS, randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { answerVerdict } from '../../validators/answers.js';
import { OracleError, screenSummary } from '../../oracle.js';
import { collectEntries, documentOpen, EDITOR, folderOpen, markorOpen, Note, openEntry, openMarkor } from './common.js';
import { clearMarkor, makeFolder, writeNote } from './markor-files.js';

/**
 * Information retrieval in Markor: reading a line of a note, and counting the notes of a folder
 * (a list longer than the screen, with sub-folders that do not count).
 */
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'] as const;
/** Lines that fit the editor's width, so a line on screen is a line of the file (no wrapping). */
const SHORT_LINES = [...TODO_ITEMS, ...NOTE_SENTENCES.filter((l) => l.length <= 36)];

const LineP = z.object({
  file_name: z.string().min(1),
  text: z.string().min(1),
  line: z.int().min(0).max(ORDINALS.length - 1),
  others: z.array(Note),
});

export const MarkorNoteLineQuestion = defineTask({
  id: 'MarkorNoteLineQuestion',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'screen_reading', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'What is the {ordinal} line of the note {file_name} in Markor? Answer with the text of that line only.',
  params: LineP,
  generate: (rng) => {
    const [fileName, ...names] = randomNoteNames(rng, 1 + rng.int(6, 16));
    const lines = rng.int(3, 5);
    return {
      file_name: fileName!,
      text: rng.sample(SHORT_LINES, lines).join('\n'),
      line: rng.int(0, lines - 1),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(2, 4)) })),
    };
  },
  instruction: (p) => `What is the ${ORDINALS[p.line]} line of the note ${p.file_name} in Markor? Answer with the text of that line only.`,
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, { name: p.file_name, text: p.text }]) await writeNote(device, n.name, n.text);
  },
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.text.split('\n')[p.line]!),
  subgoals: (p) => [markorOpen, documentOpen(p.file_name)],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.file_name);
    const line = ui.require(EDITOR).node.text.split('\n')[p.line];
    if (line === undefined) throw new OracleError(`The note has no line ${p.line + 1}`, screenSummary(ui.obs));
    yield ui.answer(line);
  },
});

const FolderP = z.object({ name: z.string().min(1), notes: z.array(Note), subfolders: z.array(z.string()) });
const CountP = z.object({ folder: z.string().min(1), folders: z.array(FolderP).min(2) });
type CountParams = z.infer<typeof CountP>;

function target(p: CountParams): z.infer<typeof FolderP> {
  return p.folders.find((f) => f.name === p.folder)!;
}

export const MarkorCountNotesQuestion = defineTask({
  id: 'MarkorCountNotesQuestion',
  apps: ['Markor'],
  difficulty: 'hard',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'How many notes are in the {folder} folder in Markor? Count only the files directly in it, not sub-folders. Answer with a number.',
  params: CountP,
  generate: (rng) => {
    const names = rng.sample(FOLDER_NAMES, rng.int(3, 6));
    const counts = names.map((_, i) => (i === 0 ? rng.int(9, 18) : rng.int(1, 6)));
    const all = randomNoteNames(rng, counts.reduce((a, b) => a + b, 0));
    const folders = names.map((name, i) => ({
      name,
      notes: all.splice(0, counts[i]!).map((n) => ({ name: n, text: randomNoteText(rng, 1) })),
      subfolders: i === 0 ? rng.sample(['Old', 'Drafts', 'Attachments', 'Images'], rng.int(0, 2)) : [],
    }));
    return { folder: names[0]!, folders: rng.shuffle(folders) };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const f of p.folders) {
      await makeFolder(device, f.name);
      for (const s of f.subfolders) await makeFolder(device, `${f.name}/${s}`);
      for (const n of f.notes) await writeNote(device, `${f.name}/${n.name}`, n.text);
    }
  },
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(target(p).notes.length)),
  subgoals: (p) => [markorOpen, folderOpen(p.folder)],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.folder);
    // Notes have an extension; the sub-folders listed first do not.
    const names = yield* collectEntries(ui);
    yield ui.answer(String(names.filter((n) => /\.[a-z]+$/i.test(n)).length));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [MarkorNoteLineQuestion, MarkorCountNotesQuestion];
