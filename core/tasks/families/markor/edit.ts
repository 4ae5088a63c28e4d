import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomNoteNames, randomNoteText, TODO_ITEMS } from '../../../seed-data/notes.js';
import { fieldHolds, inActivity, onScreen } from '../../validators/ui.js';
import { documentOpen, EDITOR, MAIN_ACTIVITY, MARKOR_PKG, markorOpen, Note, openEntry, openMarkor } from './common.js';
import { clearMarkor, notebookTree, readNote, sameTypedText, treeOf, treeVerdict, writeNote } from './markor-files.js';

/**
 * Editing a note's text (AndroidWorld's MarkorEditNote: a line added at the top or the bottom, or
 * the whole text replaced) and adding a task to todo.txt through the To-Do tab. The edited file
 * must read exactly as asked; tolerated: trailing whitespace, and a blank line between the old
 * text and an added line.
 */
const EDIT_TYPES = ['header', 'footer', 'replace'] as const;

const EditP = z.object({
  file_name: z.string().min(1),
  original: z.string().min(1),
  edit_type: z.enum(EDIT_TYPES),
  /** The line added (header, footer) or the new text (replace). */
  new_text: z.string().min(1),
  others: z.array(Note),
});
type EditParams = z.infer<typeof EditP>;

/** The texts that count as the edit done right. */
function acceptable(p: EditParams): string[] {
  if (p.edit_type === 'replace') return [p.new_text];
  return ['\n', '\n\n'].map((sep) => (p.edit_type === 'header' ? p.new_text + sep + p.original : p.original + sep + p.new_text));
}

function edited(p: EditParams, text: string | null): boolean {
  return acceptable(p).some((want) => sameTypedText(text, want));
}

export const MarkorEditNote = defineTask({
  id: 'MarkorEditNote',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['data_edit', 'file_management'],
  kind: 'completion',
  template: 'Edit {file_name} in Markor. Add to the top of the note / Add to the bottom of the note / Replace the text with: {new_text}',
  params: EditP,
  generate: (rng) => {
    const [fileName, ...names] = randomNoteNames(rng, 1 + rng.int(3, 9));
    const editType = rng.pick(EDIT_TYPES);
    const original = randomNoteText(rng, rng.int(1, 3));
    let newText = randomNoteText(rng, editType === 'replace' ? rng.int(2, 3) : 1);
    while (original.includes(newText)) newText = randomNoteText(rng, 1);
    return {
      file_name: fileName!,
      original,
      edit_type: editType,
      new_text: newText,
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 3)) })),
    };
  },
  instruction: (p) => {
    const what = { header: 'Add to the top of the note', footer: 'Add to the bottom of the note', replace: 'Replace the text with' }[p.edit_type];
    return `Edit ${p.file_name} in Markor. ${what}: ${p.new_text}`;
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, { name: p.file_name, text: p.original }]) await writeNote(device, n.name, n.text);
  },
  // The reasons show the first acceptable text as expected (the check accepts one or two newlines between).
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.file_name, text: acceptable(p)[0]! }]), {
    [p.file_name]: (t) => edited(p, t),
  }),
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.file_name),
    { name: 'text edited', check: async ({ obs }) => acceptable(p).some((t) => fieldHolds(obs, t)) },
    { name: 'note saved', check: async ({ device }) => edited(p, await readNote(device, p.file_name)) },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.file_name);
    // The text to keep is read where a person reads it: in the editor.
    if (p.edit_type === 'footer') yield ui.type(EDITOR, `\n${p.new_text}`);
    else if (p.edit_type === 'header') yield ui.type(EDITOR, `${p.new_text}\n${ui.require(EDITOR).node.text}`, { clear: true });
    else yield ui.type(EDITOR, p.new_text, { clear: true });
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const TodoP = z.object({ items: z.array(z.string().min(1)), item: z.string().min(1), others: z.array(Note) });

/** todo.txt's tasks, one per non-blank line, trailing spaces ignored, in any order. */
function sameTasks(text: string | null, want: readonly string[]): boolean {
  if (text === null) return false;
  const got = text.split('\n').map((l) => l.trimEnd()).filter(Boolean).sort();
  const exp = [...want].sort();
  return got.length === exp.length && got.every((l, i) => l === exp[i]);
}

export const MarkorAddTodoItem = defineTask({
  id: 'MarkorAddTodoItem',
  apps: ['Markor'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Add the task "{item}" to my to-do list in Markor.',
  params: TodoP,
  generate: (rng) => {
    const [item, ...items] = rng.sample(TODO_ITEMS, 1 + rng.int(2, 5));
    return {
      item: item!,
      items,
      others: randomNoteNames(rng, rng.int(1, 4)).map((name) => ({ name, text: randomNoteText(rng, 1) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.others) await writeNote(device, n.name, n.text);
    await writeNote(device, 'todo.txt', p.items.join('\n'), { ageMinutes: 120 });
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: 'todo.txt', text: [...p.items, p.item].join('\n') }]), {
    'todo.txt': (t) => sameTasks(t, [...p.items, p.item]),
  }),
  subgoals: (p) => [
    markorOpen,
    { name: 'To-Do tab open', check: async ({ obs }) => inActivity(obs, MARKOR_PKG, MAIN_ACTIVITY) && onScreen(obs, { resourceId: 'toolbar_title', text: 'To-Do' }) },
    { name: 'task typed', check: async ({ obs }) => obs.elements.some((e) => e.node.className === 'android.widget.EditText' && e.node.text.includes(p.item)) },
    { name: 'task saved', check: async ({ device }) => sameTasks(await readNote(device, 'todo.txt'), [...p.items, p.item]) },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield ui.tap({ text: 'To-Do' });
    yield ui.type(EDITOR, `\n${p.item}`);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

export const EDIT_TASKS: readonly TaskTemplate[] = [MarkorEditNote, MarkorAddTodoItem];
