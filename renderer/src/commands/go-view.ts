import type { ViewName } from '../store/slices/ui.js';
import { register, type CommandName, type KeyLike } from './types.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** Ctrl+N (Cmd+N on macOS) shows the Nth view, as in tabbed apps. */
export function goView(name: CommandName & `go-${string}`, view: ViewName, label: string, n: number) {
  return register({
    name,
    label,
    shortcut: isMac ? `⌘${n}` : `Ctrl+${n}`,
    keyTest: (e: KeyLike) => (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.code === `Digit${n}` || e.key === String(n)),
    predicate: (s) => s.view !== view,
    perform: (store) => store.getState().setView(view),
  });
}
