import type { DialogView, MenuItem } from '../../runtime/app.js';
import type { Handler, ViewSpec } from '../../view/spec.js';
import { checkbox, dialog, text, textField } from '../../view/widgets.js';
import { formatBytes, formatDuration, type RecordRow } from './store.js';

/** The app's dialogs (dialog_rename.xml, the delete warning, the record information) and record menu. */

export const RENAME_FIELD = 'input_name';

/** "New name": the name box, an error line, an optional "Don't ask again", Cancel and Save. */
export function renameDialog(o: {
  error: string | null;
  dontAsk?: { checked: boolean; onToggle: Handler };
  onCancel: Handler;
  onSave: Handler;
}): DialogView {
  const body: ViewSpec[] = [textField({ field: RENAME_FIELD, hint: 'Name', id: 'input_name', onSubmit: o.onSave })];
  if (o.error) body.push(text(o.error, { id: 'txt_error', size: 12, fg: 'error', pad: [0, 28, 4, 28] }));
  if (o.dontAsk) body.push(checkbox({ label: "Don't ask again", checked: o.dontAsk.checked, onToggle: o.dontAsk.onToggle, id: 'check_box' }));
  return {
    spec: dialog({
      title: 'New name',
      body,
      buttons: [
        { label: 'Cancel', onClick: o.onCancel, id: 'dialog_negative_btn' },
        { label: 'Save', onClick: o.onSave, id: 'dialog_positive_btn' },
      ],
    }),
    onCancel: o.onCancel,
  };
}

export function renameError(problem: 'empty' | 'exists' | 'invalid'): string {
  if (problem === 'exists') return 'File with this name is already exists!';
  if (problem === 'invalid') return 'Failed to rename the record!';
  return 'Name cannot be empty';
}

export function deleteDialog(message: string, h: { onCancel: Handler; onDelete: Handler }): DialogView {
  return {
    spec: dialog({
      title: 'Warning!',
      message,
      buttons: [{ label: 'Cancel', onClick: h.onCancel, id: 'dialog_negative_btn' }, { label: 'Delete', onClick: h.onDelete, id: 'dialog_positive_btn' }],
    }),
    onCancel: h.onCancel,
  };
}

function infoLine(label: string, value: string, id: string): ViewSpec {
  return text(`${label} ${value}`, { id, size: 16, pad: [4, 24, 4, 24] });
}

/** "Information": what the records list's menu shows about a record. */
export function infoDialog(r: RecordRow, onClose: Handler): DialogView {
  const created = new Date(r.created).toISOString().replace('T', ' ').slice(0, 19);
  return {
    spec: dialog({
      title: 'Information',
      body: [
        infoLine('Name:', r.name, 'info_name'),
        infoLine('Format:', r.format, 'info_format'),
        infoLine('Duration:', formatDuration(r.duration), 'info_duration'),
        infoLine('Frequency:', `${r.sample_rate} Hz`, 'info_frequency'),
        infoLine('Size:', formatBytes(r.size), 'info_size'),
        infoLine('Created:', created, 'info_created'),
        text('File location:', { size: 16, pad: [4, 24, 0, 24] }),
        text(r.path, { id: 'info_location', size: 13, pad: [0, 24, 4, 24], fg: 'onSurfaceVariant' }),
      ],
      buttons: [{ label: 'Ok', onClick: onClose }],
    }),
    onCancel: onClose,
  };
}

/** A record's "More options" menu, in the app's order. */
export function recordMenu(h: { share: Handler; info: Handler; rename: Handler; download: Handler; remove: Handler }): MenuItem[] {
  return [
    { label: 'Share', id: 'menu_share', onClick: h.share },
    { label: 'Information', id: 'menu_info', onClick: h.info },
    { label: 'Rename', id: 'menu_rename', onClick: h.rename },
    { label: 'Download', id: 'menu_download', onClick: h.download },
    { label: 'Delete', id: 'menu_delete', onClick: h.remove },
  ];
}
