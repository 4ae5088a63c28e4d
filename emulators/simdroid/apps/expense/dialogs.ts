import type { DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { caption, column, dialog, fill, iconButton, row, stack, strip, text } from '../../view/widgets.js';
import { category, deleteExpenses, formatAmount, getExpense } from './db.js';
import { openEntry } from './entry.js';
import { detailDate } from './format.js';
import { itemsText } from './logs.js';
import { CURRENCY_SYMBOL } from './rows.js';
import type { Ctx } from './state.js';

/**
 * The expense detail sheet (expense_detail_dialog: the category, name, amount, date and note, a
 * Delete icon and Edit) and the delete confirmation (frag_delete_confirm_dialog: "Delete Items",
 * "N item(s) will be deleted!", Confirm).
 */
function field(label: string, value: string, id: string): ViewSpec {
  return column([
    caption(label, { pad: 0, size: 12 }),
    text(value || '-', { id, size: 16, pad: [2, 0, 0, 0] }),
  ], { pad: [6, 24, 6, 24] });
}

function detailDialog(ctx: Ctx, id: number): DialogView {
  const close = () => { ctx.s.dialog = null; };
  const e = getExpense(ctx.app.db, id);
  if (!e) {
    // Deleted behind the sheet's back (a shell command): there is nothing left to show.
    return { spec: dialog({ title: 'Expense Detail', message: 'No Data', buttons: [{ label: 'Close', onClick: close }] }), onCancel: close };
  }
  const c = category(e.category);
  const header = row([
    stack([strip({ cls: W.ImageView, id: 'imv_category', desc: c.name, w: 40, h: 40, style: { icon: c.icon, iconColor: 'primary' } })],
      { id: 'cv_category', w: 40, h: 40, style: { bg: 'surfaceVariant', radius: 12 } }),
    column([fill(), text(c.name, { id: 'tv_category_value', size: 14, pad: 0, fg: 'onSurfaceVariant' }), fill()], { weight: 1 }),
    iconButton('delete', 'Delete', () => { ctx.s.dialog = { kind: 'delete', ids: [e.expense_id] }; }, { id: 'btn_delete' }),
  ], { pad: [0, 24, 0, 24], gap: 12, h: 48 });
  return {
    spec: dialog({
      title: 'Expense Detail',
      body: [
        header,
        text(e.name ?? '', { id: 'tv_name_value', size: 22, bold: true, pad: [8, 24, 4, 24] }),
        field('Amount', `${formatAmount(e.amount)} ${CURRENCY_SYMBOL}`, 'tv_amount_value'),
        field('Date', detailDate(e.modified_date), 'tv_date_value'),
        field('Note', e.note ?? '', 'tv_note_value'),
      ],
      buttons: [
        { label: 'Close', onClick: close, id: 'btn_close' },
        { label: 'Edit', onClick: () => openEntry(ctx, e.expense_id), id: 'btn_edit' },
      ],
    }),
    onCancel: close,
  };
}

function deleteDialog(ctx: Ctx, ids: number[]): DialogView {
  const close = () => { ctx.s.dialog = null; };
  return {
    spec: dialog({
      title: 'Delete Items',
      message: `${itemsText(ids.length)} will be deleted!`,
      buttons: [
        { label: 'Cancel', onClick: close },
        {
          label: 'Confirm',
          onClick: () => {
            deleteExpenses(ctx.app.db, ids);
            ctx.s.selection = null;
            close();
            ctx.nav.toast(ids.length === 1 ? 'Item Deleted' : 'Items Deleted');
          },
        },
      ],
    }),
    onCancel: close,
  };
}

export function expenseDialog(ctx: Ctx): DialogView | undefined {
  const dlg = ctx.s.dialog;
  if (dlg?.kind === 'detail') return detailDialog(ctx, dlg.id);
  if (dlg?.kind === 'delete') return deleteDialog(ctx, dlg.ids);
  return undefined;
}
