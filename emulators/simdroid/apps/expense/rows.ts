import type { Handler, ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { column, row, stack, strip, text } from '../../view/widgets.js';
import { category, formatAmount, type Expense } from './db.js';
import { rowDate } from './format.js';

/**
 * An expense row (item_expense_log / item_expense_recent): the category icon in a card, the name
 * and date, the amount with the currency symbol. The icon's content description names the
 * category, which is how a screen reader (and an agent) tells categories apart.
 */
export const CURRENCY_SYMBOL = '$';

export function expenseRow(e: Expense, now: number, h: { onClick?: Handler; onLongClick?: Handler; selected?: boolean }): ViewSpec {
  const c = category(e.category);
  const iconCard = stack([
    strip({ cls: W.ImageView, id: 'imv_category', desc: c.name, w: 48, h: 48, style: { icon: h.selected ? 'check' : c.icon, iconColor: 'primary' } }),
  ], { id: 'cv_category', w: 48, h: 48, style: { bg: h.selected ? 'primaryContainer' : 'surfaceVariant', radius: 12 } });
  const texts = column([
    text(e.name ?? '', { id: 'tv_name', size: 16, pad: 0, lines: 1 }),
    text(rowDate(e.modified_date, now), { id: 'tv_date', size: 13, pad: [2, 0, 0, 0], fg: 'onSurfaceVariant', lines: 1 }),
  ], { weight: 1, pad: [4, 0, 4, 0] });
  const amount = row([
    text(formatAmount(e.amount), { id: 'tv_amount', size: 16, bold: true, pad: 0, w: 'wrap' }),
    text(CURRENCY_SYMBOL, { id: 'tv_currency_symbol', size: 13, pad: [0, 0, 0, 4], fg: 'onSurfaceVariant', w: 'wrap' }),
  ], { id: 'linear_amount', w: 'wrap', pad: [8, 0, 0, 0] });
  return row([iconCard, texts, amount], strip({
    id: 'cd_expense', clickable: h.onClick !== undefined, onClick: h.onClick, onLongClick: h.onLongClick,
    selected: h.selected, pad: [10, 16, 10, 16], gap: 16, style: h.selected ? { bg: 'primaryContainer' } : undefined,
  }));
}
