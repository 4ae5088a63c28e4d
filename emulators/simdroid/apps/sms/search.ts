import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { caption, column, fill, list, row, screen, searchBar, text } from '../../view/widgets.js';
import { SEARCH, THREAD, avatar, listDate, use24Hour } from './common.js';
import { SMS_TYPE, allMessages, contactNames, conversations, numberKey } from './db.js';

/**
 * SearchActivity: conversations whose name or number match, then messages whose text contains the
 * query (at least two characters, as the real app waits for). A result opens its thread.
 */
type Ctx = ActivityContext<Record<string, never>>;

interface Hit {
  address: string;
  title: string;
  snippet: string;
  date: number;
}

function resultRow(ctx: Ctx, h: Hit, now: number, h24: boolean): ViewSpec {
  return row(
    [
      avatar(h.title === h.address ? null : h.title, numberKey(h.address), 'search_result_image', 40),
      column([
        fill(),
        text(h.title, { id: 'search_result_title', size: 16, lines: 1, pad: 0 }),
        caption(h.snippet, { id: 'search_result_snippet', lines: 2, pad: 0 }),
        fill(),
      ], { weight: 1 }),
      caption(listDate(h.date, now, h24), { id: 'search_result_date', size: 12, w: 'wrap', pad: 0 }),
    ],
    { id: 'search_result_frame', clickable: true, onClick: () => ctx.nav.start(THREAD, { number: h.address }), pad: [10, 16, 10, 16], gap: 16 },
  );
}

function header(label: string): ViewSpec {
  return text(label, { id: 'search_results_header', size: 14, bold: true, fg: 'primary', pad: [16, 16, 4, 16] });
}

export const searchActivity: ActivityDef<Record<string, never>> = {
  name: SEARCH,
  create: () => ({}),
  render: (ctx) => {
    const q = (ctx.fields.query ?? '').trim().toLowerCase();
    const now = ctx.sys.clock.now();
    const h24 = use24Hour(ctx.app, ctx.sys);
    const items: ViewSpec[] = [];
    if (q.length >= 2) {
      const digits = q.replace(/\D/g, '');
      const convHits: Hit[] = conversations(ctx.sys)
        .filter((c) => (c.name ?? '').toLowerCase().includes(q) || c.address.toLowerCase().includes(q) || (digits.length >= 2 && /^[\d+()\-. ]+$/.test(q) && c.address.replace(/\D/g, '').includes(digits)))
        .map((c) => ({ address: c.address, title: c.name ?? c.address, snippet: c.snippet, date: c.date }));
      const names = contactNames(ctx.sys);
      const msgHits: Hit[] = allMessages(ctx.sys)
        .filter((m) => m.type !== SMS_TYPE.draft && m.body.toLowerCase().includes(q))
        .sort((a, b) => b.date - a.date)
        .map((m) => ({ address: m.address, title: names.get(numberKey(m.address)) ?? m.address, snippet: m.body, date: m.date }));
      if (convHits.length) items.push(header('Conversations'), ...convHits.map((h) => resultRow(ctx, h, now, h24)));
      if (msgHits.length) items.push(header('Messages'), ...msgHits.map((h) => resultRow(ctx, h, now, h24)));
    }
    const body: ViewSpec[] = [searchBar({ field: 'query', hint: 'Search', onBack: () => ctx.nav.finish(), id: 'search_src_text' })];
    if (q.length >= 2 && items.length === 0) body.push(text('No items found.', { id: 'search_placeholder', align: 'center', fg: 'onSurfaceVariant', pad: [32, 16, 8, 16] }));
    else if (q.length < 2) body.push(caption('Type at least 2 characters to start the search.', { id: 'search_placeholder_2', align: 'center', pad: [32, 16, 8, 16] }));
    else body.push(list('results', items, { id: 'search_results_list' }));
    return { body: screen({ body }) };
  },
};
