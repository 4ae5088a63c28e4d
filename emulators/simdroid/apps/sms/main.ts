import type { ActivityContext, ActivityDef, ActivityView, MenuView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, column, fab, fill, iconButton, list, row, screen, strip, text } from '../../view/widgets.js';
import { ABOUT, MAIN, NEW_CONVERSATION, SEARCH, SETTINGS, THREAD, avatar, deleteConfirmation, listDate, use24Hour } from './common.js';
import { conversations, deleteThread, markThreadRead, markThreadUnread, type Conversation } from './db.js';

/**
 * MainActivity: the conversation list (one row per thread, newest first, unread ones bold with a
 * count badge), the "Start a conversation" FAB, search, an overflow menu, and a long-press menu
 * per conversation (mark read/unread, delete with confirmation).
 */
export interface MainState {
  menu: 'overflow' | null;
  /** The conversation (its address) whose long-press menu is open. */
  selected: string | null;
  /** The conversation (its address) the delete confirmation asks about. */
  confirmDelete: string | null;
}

type Ctx = ActivityContext<MainState>;

function badge(count: number): ViewSpec {
  return strip({
    cls: W.TextView, id: 'conversation_unread_count', text: String(count), desc: `${count} unread`, w: 24, h: 24,
    style: { variant: 'avatar', bg: 'primary', fg: 'onPrimary', textAlign: 'center', size: 12, bold: true, radius: 12 },
  });
}

function conversationRow(ctx: Ctx, c: Conversation, now: number, h24: boolean): ViewSpec {
  const unread = c.unread > 0;
  const snippet = c.draft !== null ? `Draft: ${c.draft}` : c.snippet;
  const meta: ViewSpec[] = [text(listDate(c.date, now, h24), { id: 'conversation_date', size: 12, pad: [0, 0, 4, 0], align: 'right', bold: unread, fg: unread ? 'onSurface' : 'onSurfaceVariant' })];
  if (unread) meta.push(row([fill(), badge(c.unread)], { h: 24 }));
  return row(
    [
      column([fill(), avatar(c.name, c.key, 'conversation_image'), fill()], { w: 48 }),
      column([
        fill(),
        text(c.name ?? c.address, { id: 'conversation_address', size: 17, bold: unread, lines: 1, pad: 0 }),
        text(snippet, { id: 'conversation_body_short', size: 14, bold: unread, lines: 2, pad: 0, fg: unread ? 'onSurface' : 'onSurfaceVariant' }),
        fill(),
      ], { weight: 1 }),
      column(meta, { w: 'wrap', pad: [4, 0, 0, 0] }),
    ],
    {
      id: 'conversation_frame', clickable: true, pad: [12, 16, 12, 16], gap: 14,
      selected: ctx.s.selected === c.address,
      style: ctx.s.selected === c.address ? { bg: 'primaryContainer' } : {},
      onClick: () => ctx.nav.start(THREAD, { number: c.address }),
      onLongClick: () => { ctx.s.selected = c.address; },
    },
  );
}

function emptyState(ctx: Ctx): ViewSpec {
  return column([
    fill(),
    text('No stored conversations have been found', { id: 'no_conversations_placeholder', align: 'center', size: 18, fg: 'onSurfaceVariant', pad: [8, 32, 8, 32] }),
    text('Start a conversation', {
      id: 'no_conversations_placeholder_2', align: 'center', bold: true, fg: 'primary', pad: [8, 32, 8, 32],
      onClick: () => ctx.nav.start(NEW_CONVERSATION),
    }),
    fill(),
  ], { h: 'fill' });
}

function menuOf(ctx: Ctx, convs: Conversation[]): MenuView | undefined {
  if (ctx.s.menu === 'overflow') {
    const close = () => { ctx.s.menu = null; };
    return {
      items: [
        { label: 'Settings', onClick: () => { close(); ctx.nav.start(SETTINGS); } },
        { label: 'About', onClick: () => { close(); ctx.nav.start(ABOUT); } },
      ],
      onDismiss: close,
    };
  }
  const c = convs.find((x) => x.address === ctx.s.selected);
  if (!c) return undefined;
  const close = () => { ctx.s.selected = null; };
  return {
    items: [
      c.unread > 0
        ? { label: 'Mark as Read', onClick: () => { markThreadRead(ctx.sys, c.address); close(); } }
        : { label: 'Mark as Unread', onClick: () => { markThreadUnread(ctx.sys, c.address); close(); } },
      { label: 'Delete', onClick: () => { ctx.s.confirmDelete = c.address; close(); } },
    ],
    onDismiss: close,
  };
}

export const mainActivity: ActivityDef<MainState> = {
  name: MAIN,
  create: () => ({ menu: null, selected: null, confirmDelete: null }),
  render: (ctx) => {
    const convs = conversations(ctx.sys);
    const now = ctx.sys.clock.now();
    const h24 = use24Hour(ctx.app, ctx.sys);
    const body = convs.length
      ? list('conversations', convs.map((c) => conversationRow(ctx, c, now, h24)), { id: 'conversations_list' })
      : emptyState(ctx);
    const view: ActivityView = {
      body: screen({
        appBar: appBar({
          title: 'Simple SMS Messenger',
          actions: [iconButton('search', 'Search', () => ctx.nav.start(SEARCH), { id: 'search' })],
          onOverflow: () => { ctx.s.menu = 'overflow'; },
        }),
        body: [body],
        fab: fab('message', 'Start a conversation', () => ctx.nav.start(NEW_CONVERSATION), { id: 'conversations_fab' }),
      }),
    };
    const menu = menuOf(ctx, convs);
    if (menu) view.menu = menu;
    const target = ctx.s.confirmDelete;
    if (target !== null) {
      const close = () => { ctx.s.confirmDelete = null; };
      view.dialog = deleteConfirmation(() => { deleteThread(ctx.sys, target); close(); }, close);
    }
    return view;
  },
};
