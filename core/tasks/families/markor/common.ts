import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiElement, UiSelector } from '../../../a11y/ui-tree.js';
import { launch, OracleError, scrollTo, screenSummary, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';

/** Markor's package, activities and the resource ids oracles and subgoals read. */
export const MARKOR_PKG = 'net.gsantner.markor';
export const MAIN_ACTIVITY = 'net.gsantner.markor.activity.MainActivity';
export const DOCUMENT_ACTIVITY = 'net.gsantner.markor.activity.DocumentActivity';

export const FILE_LIST: UiSelector = { resourceId: 'ui__filesystem_dialog__list' };
export const PICKER_LIST: UiSelector = { resourceId: 'ui__filesystem_dialog__folder_list' };
export const EDITOR: UiSelector = { resourceId: 'document__fragment__edit__highlighting_editor' };
export const NEW_NAME: UiSelector = { resourceId: 'new_file_dialog__name' };
export const FAB: UiSelector = { contentDesc: 'Create a new file or folder' };
const TITLE_ID = 'ui__filesystem_item__title';

export function entry(name: string): UiSelector {
  return { text: name, resourceId: TITLE_ID };
}

/** A note as task parameters carry it. */
export const Note = z.object({ name: z.string().min(1), text: z.string() });
export type NoteP = z.infer<typeof Note>;

export function* openMarkor(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, 'Markor');
}

/** Scrolls the file list to an entry. */
export function* findEntry(ui: OracleUi, name: string): Generator<Action, UiElement, void> {
  return yield* scrollTo(ui, entry(name), { within: FILE_LIST });
}

export function* openEntry(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield ui.tap(yield* findEntry(ui, name));
}

/** Long-presses an entry: the selection mode with it selected. */
export function* selectEntry(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield ui.longPress(yield* findEntry(ui, name));
}

function inside(el: UiElement, container: UiElement): boolean {
  for (let e: UiElement | null = el.parent; e; e = e.parent) if (e.node === container.node) return true;
  return false;
}

/** An element inside the first container matching `within` (a dialog's list over a screen's). */
export function findIn(ui: OracleUi, within: UiSelector, sel: UiSelector): UiElement | undefined {
  const box = ui.find(within);
  return box ? ui.findAll(sel).find((e) => inside(e, box)) : undefined;
}

/** Scrolls a container until an element inside it matches. */
export function* scrollToIn(ui: OracleUi, within: UiSelector, sel: UiSelector, max = 30): Generator<Action, UiElement, void> {
  for (let i = 0; i <= max; i++) {
    const el = findIn(ui, within, sel);
    if (el) return el;
    const before = ui.fingerprint();
    yield ui.scroll('down', within);
    if (ui.fingerprint() === before) break;
  }
  throw new OracleError(`Could not find ${JSON.stringify(sel)} in ${JSON.stringify(within)}`, screenSummary(ui.obs));
}

/** Every entry name of the current folder, scrolling through the list (from the top). */
export function* collectEntries(ui: OracleUi, max = 30): Generator<Action, string[], void> {
  const seen = new Set<string>();
  for (let i = 0; i <= max; i++) {
    for (const el of ui.findAll({ resourceId: TITLE_ID })) if (el.node.text !== '..') seen.add(el.node.text);
    if (!ui.exists(FILE_LIST)) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', FILE_LIST);
    if (ui.fingerprint() === before) break;
  }
  return [...seen];
}

export const markorOpen: Subgoal = {
  name: 'Markor open',
  check: async ({ obs }) => inActivity(obs, MARKOR_PKG),
};

/** The file browser shows a folder (its title in the toolbar). */
export function folderOpen(folder: string): Subgoal {
  return {
    name: `folder ${folder} open`,
    check: async ({ obs }) => inActivity(obs, MARKOR_PKG, MAIN_ACTIVITY) && onScreen(obs, { resourceId: 'toolbar_title', text: folder }),
  };
}

/** The editor has a document open (its file name under the title). */
export function documentOpen(fileName: string): Subgoal {
  return {
    name: `${fileName} open`,
    check: async ({ obs }) => inActivity(obs, MARKOR_PKG, DOCUMENT_ACTIVITY) && onScreen(obs, { text: fileName }),
  };
}

export const newFileDialogOpen: Subgoal = {
  name: 'new file dialog open',
  check: async ({ obs }) => onScreen(obs, NEW_NAME),
};

export function selected(name: string): Subgoal {
  return {
    name: `${name} selected`,
    check: async ({ obs }) => onScreen(obs, { resourceId: 'toolbar_title', text: /selected$/ }) && obs.elements.some((e) => e.node.selected && e.node.clickable && e.node.children.some((c) => c.children.some((t) => t.text === name))),
  };
}
