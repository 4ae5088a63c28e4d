import type { ActivityContext, ActivityDef, ActivityView, MenuView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { textWidth } from '../../view/text-metrics.js';
import { appBar, caption, column, dialog, fill, iconButton, list, row, screen, strip } from '../../view/widgets.js';
import { NEW_CONVERSATION, PREF, THREAD, deleteConfirmation, headerDate, prefFlag, use24Hour } from './common.js';
import {
  SMS_TYPE, contactName, deleteDraft, deleteMessage, deleteThread, draftFor, markThreadRead, markThreadUnread,
  messageById, saveDraft, sendMessage, threadMessages, type Message,
} from './db.js';

/**
 * ThreadActivity: one conversation. Bubbles (received on the left, sent on the right) under date
 * headers, the list opening scrolled to the newest; "Type a message…" and Send at the bottom.
 * Opening it marks the conversation read; leaving with unsent text keeps it as a draft, as the
 * real app saves one to Telephony's draft box. Long-press on a bubble opens its actions.
 */
export interface ThreadState {
  number: string;
  menu: 'overflow' | null;
  /** The message whose long-press menu is open (or whose deletion is being confirmed). */
  selected: number | null;
  dialog: 'delete_thread' | 'delete_message' | null;
}

type Ctx = ActivityContext<ThreadState>;

const FIELD = 'message';
const LIST = 'messages';
/** Scrolled "to the end": layout clamps an offset to the list's length. */
const END = 1e9;
/** A date header separates messages more than this far apart. */
const HEADER_GAP_MS = 60 * 60 * 1000;
const BUBBLE_MAX_DP = 300;
const PHONE_PKG = 'com.google.android.dialer';

function bubble(ctx: Ctx, m: Message): ViewSpec {
  const received = m.type === SMS_TYPE.inbox;
  const widest = Math.max(...m.body.split('\n').map((l) => textWidth(l, 16)));
  const selected = ctx.s.selected === m.id;
  const spec = strip({
    cls: W.TextView, id: 'thread_message_body', text: m.body, w: Math.min(BUBBLE_MAX_DP, Math.ceil(widest) + 36),
    pad: [10, 14, 10, 14], selected, onLongClick: () => { ctx.s.selected = m.id; },
    style: {
      size: 16, radius: 18,
      bg: selected ? 'primaryContainer' : received ? 'surfaceVariant' : 'primary',
      fg: selected ? 'onPrimaryContainer' : received ? 'onSurface' : 'onPrimary',
    },
  });
  const space: ViewSpec = { cls: W.View, weight: 1 };
  const parts = [spec];
  if (m.type === SMS_TYPE.failed) parts.push(caption('Not sent', { id: 'thread_message_status', pad: [2, 4, 0, 4], fg: 'error', w: 'wrap' }));
  const box = column(parts, { w: spec.w as number });
  return row(received ? [box, space] : [space, box], { id: 'thread_message_holder', pad: [3, 16, 3, 16] });
}

function messageItems(ctx: Ctx, msgs: Message[]): ViewSpec[] {
  const now = ctx.sys.clock.now();
  const h24 = use24Hour(ctx.app, ctx.sys);
  const items: ViewSpec[] = [];
  let last = -Infinity;
  for (const m of msgs) {
    if (m.date - last > HEADER_GAP_MS) {
      items.push(caption(headerDate(m.date, now, h24), { id: 'thread_date_time', align: 'center', size: 13, pad: [14, 16, 6, 16] }));
    }
    last = m.date;
    items.push(bubble(ctx, m));
  }
  return items;
}

/** Leaving keeps unsent text as the conversation's draft (or drops an emptied one). */
function keepDraft(ctx: Ctx): void {
  const text = (ctx.fields[FIELD] ?? '').trim();
  if (text === (draftFor(ctx.sys, ctx.s.number) ?? '')) return;
  if (text) saveDraft(ctx.sys, ctx.s.number, text);
  else deleteDraft(ctx.sys, ctx.s.number);
}

function send(ctx: Ctx): void {
  const body = (ctx.fields[FIELD] ?? '').trim();
  if (!body) return;
  sendMessage(ctx.sys, ctx.s.number, body);
  ctx.fields[FIELD] = '';
  ctx.nav.scrollTo(LIST, END);
}

function composer(ctx: Ctx): ViewSpec {
  const value = ctx.fields[FIELD] ?? '';
  const onEnter = prefFlag(ctx.app, PREF.sendOnEnter);
  const field = strip({
    cls: W.EditText, field: FIELD, id: 'thread_type_message', hint: 'Type a message…', multiline: !onEnter,
    onSubmit: onEnter ? () => send(ctx) : undefined, weight: 1, pad: [12, 16, 12, 16],
    style: { bg: 'surfaceVariant', radius: 24, lines: 4 },
  });
  const parts: ViewSpec[] = [field];
  const sendCol: ViewSpec[] = [];
  if (prefFlag(ctx.app, PREF.charCounter)) {
    sendCol.push(caption(`${value.length}/160`, { id: 'thread_character_counter', size: 11, align: 'center', pad: 0 }));
  }
  // The app's send button is a text view labelled "SMS" under its send icon (MMS with an attachment);
  // AndroidWorld's send_sms tool clicks it by that text.
  sendCol.push(strip({
    cls: W.TextView, text: 'SMS', desc: 'Send', id: 'thread_send_message', enabled: value.trim() !== '', onClick: () => send(ctx),
    w: 76, h: 48, pad: [0, 6, 0, 6], style: { icon: 'send', iconColor: 'primary', size: 13, bold: true, fg: 'primary' },
  }));
  parts.push(column([fill(), ...sendCol, fill()], { w: 76 }));
  return row(parts, { id: 'message_holder', pad: [8, 8, 8, 12], gap: 4, style: { bg: 'surface' } });
}

function menuOf(ctx: Ctx): MenuView | undefined {
  if (ctx.s.menu === 'overflow') {
    const close = () => { ctx.s.menu = null; };
    return {
      items: [
        { label: 'Delete', onClick: () => { close(); ctx.s.dialog = 'delete_thread'; } },
        { label: 'Mark as Unread', onClick: () => { close(); markThreadUnread(ctx.sys, ctx.s.number); ctx.nav.finish(); } },
      ],
      onDismiss: close,
    };
  }
  if (ctx.s.selected === null || ctx.s.dialog !== null) return undefined;
  const m = messageById(ctx.sys, ctx.s.selected);
  if (!m) return undefined;
  const close = () => { ctx.s.selected = null; };
  return {
    items: [
      { label: 'Copy to clipboard', onClick: () => { close(); ctx.sys.clipboard.setText(m.body); ctx.nav.toast('Copied to clipboard'); } },
      { label: 'Forward', onClick: () => { close(); ctx.nav.start(NEW_CONVERSATION, { text: m.body }); } },
      { label: 'Delete', onClick: () => { ctx.s.dialog = 'delete_message'; } },
    ],
    onDismiss: close,
  };
}

function dialogOf(ctx: Ctx): ActivityView['dialog'] {
  if (ctx.s.dialog === 'delete_thread') {
    return deleteConfirmation(() => {
      ctx.s.dialog = null;
      deleteThread(ctx.sys, ctx.s.number);
      ctx.fields[FIELD] = '';
      ctx.nav.finish();
    }, () => { ctx.s.dialog = null; });
  }
  if (ctx.s.dialog === 'delete_message') {
    const close = () => { ctx.s.dialog = null; ctx.s.selected = null; };
    return {
      spec: dialog({
        message: 'Are you sure you want to delete 1 message?',
        buttons: [
          { label: 'No', onClick: close },
          { label: 'Yes', onClick: () => { if (ctx.s.selected !== null) deleteMessage(ctx.sys, ctx.s.selected); close(); } },
        ],
      }),
      onCancel: close,
    };
  }
  return undefined;
}

export const threadActivity: ActivityDef<ThreadState> = {
  name: THREAD,
  create: (intent, env) => {
    const number = String(intent.extras.number ?? '');
    markThreadRead(env.sys, number);
    const shared = typeof intent.extras.text === 'string' ? intent.extras.text : null;
    const text = shared ?? draftFor(env.sys, number);
    if (text) env.fields[FIELD] = text;
    env.scroll[LIST] = END;
    return { number, menu: null, selected: null, dialog: null };
  },
  render: (ctx) => {
    const name = contactName(ctx.sys, ctx.s.number);
    const msgs = threadMessages(ctx.sys, ctx.s.number);
    const view: ActivityView = {
      body: screen({
        appBar: appBar({
          title: name ?? ctx.s.number,
          ...(name ? { subtitle: ctx.s.number } : {}),
          onBack: () => { keepDraft(ctx); ctx.nav.finish(); },
          actions: [iconButton('phone', 'Dial number', () => ctx.nav.launchApp(PHONE_PKG), { id: 'dial_number' })],
          onOverflow: () => { ctx.s.menu = 'overflow'; },
        }),
        body: [
          msgs.length
            ? list(LIST, messageItems(ctx, msgs), { id: 'thread_messages_list', pad: [0, 0, 8, 0] })
            : fill(),
          composer(ctx),
        ],
      }),
    };
    const menu = menuOf(ctx);
    if (menu) view.menu = menu;
    const dlg = dialogOf(ctx);
    if (dlg) view.dialog = dlg;
    return view;
  },
  onBack: (ctx) => {
    keepDraft(ctx);
    return false;
  },
  onPause: (ctx) => keepDraft(ctx),
};
