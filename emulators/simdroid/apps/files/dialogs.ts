import type { DialogView } from '../../runtime/app.js';
import type { Handler, ViewSpec } from '../../view/spec.js';
import { dialog, radio, text, textField } from '../../view/widgets.js';
import { SORT_OPTIONS, type DocEntry, type SortKey } from './storage.js';

/** DocumentsUI's dialogs: delete confirmation, the name prompt (Rename, New folder), and Sort by. */

/** The confirmation text DocumentsUI words by what is selected. */
export function deleteMessage(items: readonly DocEntry[]): string {
  const dirs = items.filter((e) => e.dir).length;
  const files = items.length - dirs;
  if (items.length === 1) return items[0]!.dir ? `Delete folder "${items[0]!.name}" and its contents?` : `Delete "${items[0]!.name}"?`;
  if (dirs === 0) return `Delete ${files} files?`;
  if (files === 0) return `Delete ${dirs} folders and their contents?`;
  return `Delete ${items.length} items?`;
}

export function deleteDialog(items: readonly DocEntry[], h: { onCancel: Handler; onOk: Handler }): DialogView {
  return {
    spec: dialog({ message: deleteMessage(items), buttons: [{ label: 'Cancel', onClick: h.onCancel }, { label: 'OK', onClick: h.onOk }] }),
    onCancel: h.onCancel,
  };
}

/** A title, one text box (android:id/text1), an inline error, Cancel and OK (disabled while empty). */
export function nameDialog(o: {
  title: string;
  field: string;
  value: string;
  hint: string;
  error: string | null;
  onCancel: Handler;
  onOk: Handler;
}): DialogView {
  const body: ViewSpec[] = [textField({ field: o.field, hint: o.hint, id: 'android:id/text1', onSubmit: o.onOk })];
  if (o.error) body.push(text(o.error, { id: 'textinput_error', size: 12, fg: 'error', pad: [0, 28, 4, 28] }));
  return {
    spec: dialog({
      title: o.title,
      body,
      buttons: [{ label: 'Cancel', onClick: o.onCancel }, { label: 'OK', onClick: o.onOk, enabled: o.value.trim() !== '' }],
    }),
    onCancel: o.onCancel,
  };
}

/** The "Sort by" sheet: one radio per dimension and direction; picking one applies it. */
export function sortDialog(current: SortKey, h: { onPick: (k: SortKey) => void; onCancel: Handler }): DialogView {
  return {
    spec: dialog({
      title: 'Sort by',
      body: SORT_OPTIONS.map(([key, label]) => radio({ label, checked: key === current, onSelect: () => h.onPick(key), id: 'sort_option' })),
      buttons: [],
    }),
    onCancel: h.onCancel,
  };
}
