import type { ViewName } from '../store/slices/ui.js';
import { register, type CommandName, type KeyLike } from './types.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/**
 * G then a letter shows a view in a browser tab (no browser takes it); Ctrl+N (Cmd+N on macOS) shows the Nth view in
 * the desktop app, as in tabbed apps (a browser keeps Ctrl+N for its own tabs).
 */
export function goView(name: CommandName & `go-${string}`, view: ViewName, label: string, n: number, letter: string) {
  return register({
    name,
    label,
    shortcut: `G ${letter.toUpperCase()} · ${isMac ? `⌘${n}` : `Ctrl+${n}`}`,
    sequence: letter,
    keyTest: (e: KeyLike) => (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.code === `Digit${n}` || e.key === String(n)),
    predicate: (s) => s.view !== view,
    perform: (store) => store.getState().setView(view),
  });
}
