import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { randomString } from '../../../seed-data/text.js';
import { pasteInto, TEXT_TOOLBAR_ITEM, type OracleUi } from '../../oracle.js';
import { setClipboard } from '../../validators/clipboard.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { documentOpen, EDITOR, FAB, markorOpen, NEW_NAME, newFileDialogOpen, Note, openEntry, openMarkor, selectEntry } from './common.js';
import { clearMarkor, notebookTree, readNote, sameTypedText, treeOf, treeVerdict, writeNote } from './markor-files.js';

/**
 * Notes rewritten and renamed, merged, and written from the clipboard (AndroidWorld's
 * MarkorAddNoteHeader, MarkorChangeNoteContent, MarkorMergeNotes, MarkorCreateNoteFromClipboard).
 * The oracle reads a note's text where a person reads it, in the editor; the notebook must end with
 * exactly the notes asked for. Set-up notes end with a newline or not (AndroidWorld writes them with
 * `echo`, which adds one).
 */
const NEW_EXT = { resourceId: 'new_file_dialog__ext' };

/** The note's text as the editor shows it (the whole text is in the field's accessibility text). */
function editorText(ui: OracleUi): string {
  return ui.require(EDITOR).node.text;
}

/** Leaves the editor (it saves) and renames the note from the list. */
function* renameFromList(ui: OracleUi, from: string, to: string): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'Navigate up' });
  yield* selectEntry(ui, from);
  yield ui.tap({ contentDesc: 'Rename' });
  yield ui.type({ resourceId: 'new_name' }, to, { clear: true });
  yield ui.tap({ text: 'OK' });
}

/** Creates a note from the notebook's list: FAB, the name (the extension field cleared when the name has none), OK. */
export function* createNote(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield ui.tap(FAB);
  yield ui.type(NEW_NAME, name);
  if (!/\.\w+$/.test(name)) {
    // No extension: empty the extension field (select all of ".md", cut it).
    yield ui.longPress(NEW_EXT);
    if (ui.exists({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Select all' })) yield ui.tap({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Select all' });
    yield ui.tap({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Cut' });
  }
  yield ui.tap({ text: 'OK' });
}

const renamedSubgoals = (newName: string, ok: (t: string | null) => boolean) => [
  { name: 'rename dialog open', check: async ({ obs }: { obs: Parameters<typeof onScreen>[0] }) => onScreen(obs, { resourceId: 'android:id/alertTitle', text: 'Rename' }) },
  { name: `renamed to ${newName}`, check: async ({ device }: { device: Parameters<typeof readNote>[0] }) => ok(await readNote(device, newName)) },
];

const HeaderP = z.object({
  original_name: z.string().min(1), new_name: z.string().min(1), header: z.string().min(1), original: z.string().min(1),
  trailing_newline: z.boolean(), others: z.array(Note),
});

export const MarkorAddNoteHeader = defineTask({
  id: 'MarkorAddNoteHeader',
  apps: ['Markor'],
  difficulty: 'hard',
  tags: ['data_edit', 'screen_reading', 'long_press', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Update the Markor note {original_name} by adding the following text, along with a new blank line before the existing content: "{header}", and rename it to {new_name}.',
  params: HeaderP,
  generate: (rng) => {
    const [original, renamed, ...names] = randomNoteNames(rng, 2 + rng.int(2, 6));
    return {
      original_name: original!, new_name: renamed!, header: rng.chance(0.5) ? randomString(rng, 20) : randomNoteText(rng, 1),
      original: randomNoteText(rng, rng.int(1, 2)), trailing_newline: rng.chance(0.5),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.others) await writeNote(device, n.name, n.text);
    await writeNote(device, p.original_name, p.original + (p.trailing_newline ? '\n' : ''));
  },
  check: async (device, p) => {
    const want = `${p.header}\n\n${p.original}`;
    return treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.new_name, text: want }]), { [p.new_name]: (t) => sameTypedText(t, want) });
  },
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.original_name),
    { name: 'header typed', check: async ({ obs }) => obs.elements.some((e) => e.node.className === 'android.widget.EditText' && e.node.text.startsWith(`${p.header}\n\n`)) },
    ...renamedSubgoals(p.new_name, (t) => sameTypedText(t, `${p.header}\n\n${p.original}`)),
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.original_name);
    yield ui.type(EDITOR, `${p.header}\n\n${editorText(ui)}`, { clear: true });
    yield* renameFromList(ui, p.original_name, p.new_name);
    yield ui.complete();
  },
});

const ChangeP = z.object({
  original_name: z.string().min(1), new_name: z.string().min(1), content: z.string().min(1), original: z.string().min(1), others: z.array(Note),
});

export const MarkorChangeNoteContent = defineTask({
  id: 'MarkorChangeNoteContent',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['data_edit', 'long_press', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Update the content of {original_name} to "{content}" in Markor and change its name to {new_name}.',
  params: ChangeP,
  generate: (rng) => {
    const [original, renamed, ...names] = randomNoteNames(rng, 2 + rng.int(2, 6));
    return {
      original_name: original!, new_name: renamed!, content: rng.chance(0.5) ? randomString(rng, 20) : randomNoteText(rng, 1),
      original: randomString(rng, 20), others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, { name: p.original_name, text: p.original }]) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.new_name, text: p.content }]), {
    [p.new_name]: (t) => sameTypedText(t, p.content),
  }),
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.original_name),
    { name: 'content typed', check: async ({ obs }) => fieldHolds(obs, p.content) },
    ...renamedSubgoals(p.new_name, (t) => sameTypedText(t, p.content)),
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.original_name);
    yield ui.type(EDITOR, p.content, { clear: true });
    yield* renameFromList(ui, p.original_name, p.new_name);
    yield ui.complete();
  },
});

const MergeP = z.object({
  sources: z.array(Note).length(3), new_file_name: z.string().min(1), others: z.array(Note),
});

/** The merged text: each note's text, a blank line between them. */
function merged(texts: readonly string[]): string {
  return texts.map((t) => t.trim()).join('\n\n');
}

export const MarkorMergeNotes = defineTask({
  id: 'MarkorMergeNotes',
  apps: ['Markor'],
  difficulty: 'hard',
  tags: ['data_entry', 'screen_reading', 'memorization', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Merge the contents of Markor notes {file1_name}, {file2_name} and {file3_name} (in the same order) into a new Markor note named {new_file_name} and save it. Add a new line between the content of each note.',
  params: MergeP,
  maxSteps: 30,
  generate: (rng) => {
    const names = randomNoteNames(rng, 3 + rng.int(1, 5));
    const newName = rng.chance(0.5) ? randomString(rng, 8) : randomNoteNames(rng, 1, names)[0]!;
    const sources = names.slice(0, 3).map((name) => ({ name, text: rng.chance(0.5) ? randomString(rng, 20) : randomNoteText(rng, 1) }));
    return { sources, new_file_name: newName, others: names.slice(3).map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })) };
  },
  instruction: (p) => `Merge the contents of Markor notes ${p.sources[0]!.name}, ${p.sources[1]!.name} and ${p.sources[2]!.name} (in the same order) into a new Markor note named ${p.new_file_name} and save it. Add a new line between the content of each note.`,
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, ...p.sources]) await writeNote(device, n.name, `${n.text}\n`);
  },
  check: async (device, p) => {
    const want = merged(p.sources.map((s) => s.text));
    const kept = [...p.others, ...p.sources].map((n) => ({ name: n.name, text: `${n.text}\n` }));
    return treeVerdict(await notebookTree(device), treeOf([...kept, { name: p.new_file_name, text: want }]), { [p.new_file_name]: (t) => sameTypedText(t, want) });
  },
  subgoals: (p) => [
    markorOpen,
    ...p.sources.map((s) => documentOpen(s.name)),
    newFileDialogOpen,
    { name: 'merged text typed', check: async ({ obs }) => fieldHolds(obs, merged(p.sources.map((s) => s.text))) },
    { name: 'merged note saved', check: async ({ device }) => sameTypedText(await readNote(device, p.new_file_name), merged(p.sources.map((s) => s.text))) },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    const texts: string[] = [];
    for (const s of p.sources) {
      yield* openEntry(ui, s.name);
      texts.push(editorText(ui));
      yield ui.tap({ contentDesc: 'Navigate up' });
    }
    yield* createNote(ui, p.new_file_name);
    yield ui.type(EDITOR, merged(texts));
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const ClipP = z.object({ file_name: z.string().min(1), clip: z.string().min(1), others: z.array(Note) });

export const MarkorCreateNoteFromClipboard = defineTask({
  id: 'MarkorCreateNoteFromClipboard',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['data_entry', 'long_press', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Create a note in Markor named {file_name}. Perform a paste operation in the note and save the note.',
  params: ClipP,
  generate: (rng) => {
    const [fileName, ...names] = randomNoteNames(rng, 1 + rng.int(1, 5));
    return {
      file_name: fileName!, clip: rng.chance(0.5) ? randomString(rng, 10) : randomNoteText(rng, 1),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.others) await writeNote(device, n.name, n.text);
    await setClipboard(device, p.clip);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.file_name, text: p.clip }]), {
    [p.file_name]: (t) => sameTypedText(t, p.clip),
  }),
  subgoals: (p) => [
    markorOpen,
    newFileDialogOpen,
    documentOpen(p.file_name),
    { name: 'clipboard pasted', check: async ({ obs }) => fieldHolds(obs, p.clip) },
    { name: 'note saved', check: async ({ device }) => sameTypedText(await readNote(device, p.file_name), p.clip) },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* createNote(ui, p.file_name);
    yield* pasteInto(ui, EDITOR);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

export const REWRITE_TASKS: readonly TaskTemplate[] = [MarkorAddNoteHeader, MarkorChangeNoteContent, MarkorMergeNotes, MarkorCreateNoteFromClipboard];
