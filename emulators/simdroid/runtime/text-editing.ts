import type { ViewState } from '../view/layout.js';

/**
 * Editing a focused EditText the way TextView's Editor does: typed text and a paste replace the
 * selection (or go in at the caret), Delete removes the selection or the character before the
 * caret, and the floating text toolbar's Cut, Copy, Paste and Select all act on the selection.
 * All of it is window state (`ViewState.selection`, `textToolbar`), plain data a snapshot copies.
 */
export interface Range {
  start: number;
  end: number;
}

/** The focused field's text. */
export function focusedValue(view: ViewState): string {
  return view.focus === null ? '' : (view.fields[view.focus] ?? '');
}

/** The selection, clamped to the text; the caret after the last character when none is set. */
export function selectionOf(view: ViewState): Range {
  const len = focusedValue(view).length;
  const s = view.selection;
  if (!s) return { start: len, end: len };
  const a = Math.max(0, Math.min(len, s.start));
  const b = Math.max(0, Math.min(len, s.end));
  return { start: Math.min(a, b), end: Math.max(a, b) };
}

/** Puts the caret at `at` (at the end it is the default and needs no state). */
function caretAt(view: ViewState, at: number): void {
  if (at >= focusedValue(view).length) delete view.selection;
  else view.selection = { start: at, end: at };
}

/** Hides the toolbar and drops the selection: the caret goes back after the last character. */
export function dismissSelection(view: ViewState): void {
  delete view.textToolbar;
  delete view.selection;
}

/** Replaces the selection (or inserts at the caret) with `text`; the caret follows it. */
export function replaceSelection(view: ViewState, text: string): void {
  if (view.focus === null) return;
  const value = focusedValue(view);
  const { start, end } = selectionOf(view);
  view.fields[view.focus] = value.slice(0, start) + text + value.slice(end);
  delete view.textToolbar;
  caretAt(view, start + text.length);
}

/** Delete: the selection, or the character (code point) before the caret. */
export function deleteBackward(view: ViewState): void {
  if (view.focus === null) return;
  const value = focusedValue(view);
  const { start, end } = selectionOf(view);
  delete view.textToolbar;
  if (start !== end) {
    view.fields[view.focus] = value.slice(0, start) + value.slice(end);
    caretAt(view, start);
    return;
  }
  if (start === 0) return;
  const before = [...value.slice(0, start)];
  const cut = before.pop()!.length;
  view.fields[view.focus] = value.slice(0, start - cut) + value.slice(start);
  caretAt(view, start - cut);
}

export function selectAll(view: ViewState): void {
  if (view.focus === null) return;
  view.selection = { start: 0, end: focusedValue(view).length };
}

export function selectedText(view: ViewState): string {
  const { start, end } = selectionOf(view);
  return focusedValue(view).slice(start, end);
}

/** KEYCODE_MOVE_HOME / MOVE_END: the caret to the start or end of its line. */
export function moveCaretInLine(view: ViewState, where: 'home' | 'end'): void {
  if (view.focus === null) return;
  const value = focusedValue(view);
  const { start, end } = selectionOf(view);
  if (where === 'home') {
    const nl = value.lastIndexOf('\n', start - 1);
    caretAt(view, start === 0 ? 0 : nl + 1);
  } else {
    const nl = value.indexOf('\n', end);
    caretAt(view, nl < 0 ? value.length : nl);
  }
  delete view.textToolbar;
}

export type ToolbarItem = 'Cut' | 'Copy' | 'Paste' | 'Select all';

/**
 * What the floating toolbar offers, in Android 13's order: Cut and Copy with a selection (not in a
 * password field), Paste when the clipboard holds text, Select all unless all is selected.
 */
export function toolbarItems(view: ViewState, clip: string | null, password: boolean): ToolbarItem[] {
  const value = focusedValue(view);
  const { start, end } = selectionOf(view);
  const items: ToolbarItem[] = [];
  if (start !== end && !password) items.push('Cut', 'Copy');
  if (clip) items.push('Paste');
  if (value.length > 0 && !(start === 0 && end === value.length)) items.push('Select all');
  return items;
}

/**
 * The toolbar's Copy, Cut and Select all on the focused field, with the clipboard (`clip.clipboard`). Paste hides the
 * toolbar and returns the clipboard's text for the caller to type as a paste; every other item returns null.
 */
export function toolbarEdit(view: ViewState, clip: { clipboard: string | null }, item: ToolbarItem): string | null {
  switch (item) {
    case 'Copy': {
      clip.clipboard = selectedText(view);
      // The selection ends; the caret stays at its end.
      const { end } = selectionOf(view);
      view.selection = { start: end, end };
      delete view.textToolbar;
      return null;
    }
    case 'Cut':
      clip.clipboard = selectedText(view);
      deleteBackward(view);
      return null;
    case 'Paste':
      delete view.textToolbar;
      return clip.clipboard ? clip.clipboard : null;
    case 'Select all':
      selectAll(view);
      view.textToolbar = focusedValue(view).length > 0;
      return null;
  }
}
