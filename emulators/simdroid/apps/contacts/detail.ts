import type { ActivityContext, ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import { CONTACTS_DB } from '../../system/providers.js';
import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, dialog, iconButton, row, screen, scroll, strip, text } from '../../view/widgets.js';
import { deleteContacts, EMAIL_TYPES, getContact, PHONE_TYPES, setStarred, type Contact } from './db.js';
import { formatPhone, letterAvatar } from './format.js';
import { DIALER_PKG, EDITOR, GMAIL_PKG, QUICK_CONTACT, SMS_PKG } from './names.js';

/**
 * QuickContactActivity: one contact — big avatar and name, company, Call/Text/Video/Email verbs,
 * the "Contact info" card (a row per number with "Call …" and "Text …", a row per email), the
 * toolbar star and Edit, and the overflow menu with Share and Delete (confirmed by a dialog).
 */
export interface DetailState {
  menu: boolean;
  dialog: null | 'delete';
}

type Ctx = ActivityContext<DetailState>;

function contactId(ctx: Ctx): number {
  return Number(ctx.intent.extras.id);
}

function verb(id: string, icon: string, label: string, onClick: Handler, enabled: boolean): ViewSpec {
  return column(
    [
      // Children carry `enabled` too: a disabled verb is drawn dimmed, as on Android.
      row([{ cls: W.View, weight: 1 }, strip({ cls: W.ImageView, w: 48, h: 48, enabled, style: { variant: 'avatar', bg: 'primaryContainer', icon, iconColor: 'onPrimaryContainer' } }), { cls: W.View, weight: 1 }], { h: 48 }),
      text(label, { size: 12, align: 'center', pad: [4, 0, 0, 0], enabled }),
    ],
    { id, clickable: true, onClick, enabled, weight: 1, desc: label, pad: [8, 0, 8, 0] },
  );
}

function infoRow(icon: string, value: string, label: string, o: { desc: string; onClick: Handler; trailing?: ViewSpec }): ViewSpec {
  return row(
    [
      strip({ cls: W.ImageView, w: 24, h: 48, style: { icon, iconColor: 'onSurfaceVariant' } }),
      column([text(value, { id: 'header', size: 16, pad: 0, lines: 1 }), caption(label, { id: 'sub_header', pad: 0 })], { weight: 1, pad: [4, 0, 4, 0] }),
      ...(o.trailing ? [o.trailing] : []),
    ],
    { clickable: true, onClick: o.onClick, desc: o.desc, gap: 24, pad: [4, 16, 4, 24] },
  );
}

function infoCard(ctx: Ctx, c: Contact): ViewSpec {
  const rows: ViewSpec[] = [text('Contact info', { size: 16, bold: true, pad: [16, 24, 8, 24] })];
  for (const p of c.phones) {
    const shown = formatPhone(p.value);
    const type = PHONE_TYPES[p.type] ?? 'Mobile';
    rows.push(infoRow('phone', shown, type, {
      desc: `Call ${type} ${shown}`,
      onClick: () => ctx.nav.launchApp(DIALER_PKG),
      trailing: iconButton('message', `Text ${type} ${shown}`, () => ctx.nav.launchApp(SMS_PKG), { id: 'icon_alternate' }),
    }));
  }
  for (const e of c.emails) {
    const type = EMAIL_TYPES[e.type] ?? 'Home';
    rows.push(infoRow('mail', e.value, type, { desc: `Email ${type} ${e.value}`, onClick: () => ctx.nav.launchApp(GMAIL_PKG) }));
  }
  if (c.phones.length === 0 && c.emails.length === 0) rows.push(caption('No contact info', { pad: [0, 24, 16, 24] }));
  return column(rows, { id: 'communication_card', pad: [0, 0, 8, 0], style: { variant: 'card', bg: 'surface', radius: 16 } });
}

function header(c: Contact): ViewSpec[] {
  const parts: ViewSpec[] = [
    row([
      { cls: W.View, weight: 1 },
      letterAvatar(c.name, c.id, 112, 'photo'),
      { cls: W.View, weight: 1 },
    ], { h: 128, pad: [16, 0, 0, 0] }),
    text(c.name, { id: 'large_title', size: 28, align: 'center', pad: [16, 24, 4, 24] }),
  ];
  if (c.company) parts.push(caption(c.company, { id: 'organization_name', size: 16, align: 'center', pad: [0, 24, 4, 24] }));
  return parts;
}

function detailMenu(ctx: Ctx): MenuView {
  const close = () => { ctx.s.menu = false; };
  return {
    items: [
      { label: 'Share', id: 'menu_share', onClick: () => { close(); ctx.nav.toast('No apps can perform this action.'); } },
      { label: 'Delete', id: 'menu_delete', onClick: () => { close(); ctx.s.dialog = 'delete'; } },
    ],
    onDismiss: close,
  };
}

function deleteDialog(ctx: Ctx): DialogView {
  const close = () => { ctx.s.dialog = null; };
  return {
    spec: dialog({
      title: 'Delete this contact?',
      message: 'This contact will be permanently deleted from this device.',
      buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'Delete', onClick: () => {
          deleteContacts(ctx.sys.db(CONTACTS_DB), [contactId(ctx)]);
          close();
          ctx.nav.toast('Contact deleted');
          ctx.nav.finish();
        } },
      ],
    }),
    onCancel: close,
  };
}

export const quickContact: ActivityDef<DetailState> = {
  name: QUICK_CONTACT,
  create: () => ({ menu: false, dialog: null }),
  render: (ctx) => {
    const db = ctx.sys.db(CONTACTS_DB);
    const c = getContact(db, contactId(ctx));
    const back = () => ctx.nav.finish();
    if (!c) {
      // Deleted while open (e.g. from the shell): nothing left to show.
      return { body: screen({ appBar: appBar({ title: '', onBack: back }), body: [text('Contact not found', { align: 'center', pad: [32, 16, 0, 16], id: 'empty_view' })] }) };
    }
    const star = c.starred
      ? iconButton('star', 'Remove from favourites', () => setStarred(db, c.id, false), { id: 'menu_star', color: 'primary' })
      : iconButton('star_outline', 'Add to favourites', () => setStarred(db, c.id, true), { id: 'menu_star' });
    const firstPhone = c.phones[0];
    const verbs = row([
      verb('verb_call', 'phone', 'Call', () => ctx.nav.launchApp(DIALER_PKG), firstPhone !== undefined),
      verb('verb_sms', 'message', 'Text', () => ctx.nav.launchApp(SMS_PKG), firstPhone !== undefined),
      verb('verb_video', 'videocam', 'Video', () => ctx.nav.launchApp(DIALER_PKG), firstPhone !== undefined),
      verb('verb_email', 'mail', 'Email', () => ctx.nav.launchApp(GMAIL_PKG), c.emails.length > 0),
    ], { pad: [16, 16, 16, 16] });
    return {
      body: screen({
        appBar: appBar({
          title: '',
          onBack: back,
          actions: [star, iconButton('edit', 'Edit contact', () => ctx.nav.start(EDITOR, { id: c.id }), { id: 'menu_insert_or_edit' })],
          onOverflow: () => { ctx.s.menu = true; },
        }),
        body: [scroll('detail', [...header(c), verbs, column([infoCard(ctx, c)], { pad: [0, 16, 16, 16] })], { id: 'quick_contact_scroll' })],
      }),
      ...(ctx.s.menu ? { menu: detailMenu(ctx) } : {}),
      ...(ctx.s.dialog === 'delete' ? { dialog: deleteDialog(ctx) } : {}),
    };
  },
};
