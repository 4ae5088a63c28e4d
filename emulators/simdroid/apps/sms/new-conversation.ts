import type { ActivityContext, ActivityDef, ActivityView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, dialog, fill, iconButton, list, radio, row, screen, strip, text } from '../../view/widgets.js';
import { NEW_CONVERSATION, THREAD, avatar } from './common.js';
import { canonicalAddress, contactList, looksLikeNumber, numberKey, type Contact } from './db.js';

/**
 * NewConversationActivity: "Add Contact or Number…" with the contacts below, filtered as one
 * types (by name or digits). A contact opens its thread (a contact with several numbers asks
 * which); a typed number opens with Enter or "Confirm selection". Forwarding arrives here with
 * the text to send, which the thread's box is filled with.
 */
export interface NewConversationState {
  /** Text being forwarded, handed to the thread. */
  text: string | null;
  /** The contact whose numbers the picker dialog offers. */
  pick: number | null;
}

type Ctx = ActivityContext<NewConversationState>;

const FIELD = 'address';

function matches(c: Contact, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  if (c.name.toLowerCase().includes(q)) return true;
  const digits = q.replace(/\D/g, '');
  return digits.length > 0 && /^[\d+()\-. ]+$/.test(q) && c.numbers.some((n) => n.replace(/\D/g, '').includes(digits));
}

function openThread(ctx: Ctx, number: string): void {
  const extras = { number: canonicalAddress(ctx.sys, number), ...(ctx.s.text !== null ? { text: ctx.s.text } : {}) };
  ctx.nav.replace(THREAD, extras);
}

function chooseContact(ctx: Ctx, c: Contact): void {
  if (c.numbers.length > 1) ctx.s.pick = c.id;
  else openThread(ctx, c.numbers[0]!);
}

function confirm(ctx: Ctx, shown: Contact[]): void {
  const q = (ctx.fields[FIELD] ?? '').trim();
  if (looksLikeNumber(q)) openThread(ctx, q);
  else if (shown.length === 1) chooseContact(ctx, shown[0]!);
  else if (q) ctx.nav.toast('Invalid number');
}

function contactRow(ctx: Ctx, c: Contact): ViewSpec {
  return row(
    [
      avatar(c.name, numberKey(c.numbers[0]!), 'item_contact_image', 40),
      column([
        fill(),
        text(c.name, { id: 'item_contact_name', size: 16, lines: 1, pad: 0 }),
        caption(c.numbers[0]!, { id: 'item_contact_number', lines: 1, pad: 0 }),
        fill(),
      ], { weight: 1 }),
    ],
    { id: 'item_contact_frame', clickable: true, onClick: () => chooseContact(ctx, c), pad: [10, 16, 10, 16], gap: 16 },
  );
}

function numberPicker(ctx: Ctx, contacts: Contact[]): ActivityView['dialog'] {
  const c = contacts.find((x) => x.id === ctx.s.pick);
  if (!c) return undefined;
  const close = () => { ctx.s.pick = null; };
  return {
    spec: dialog({
      title: 'Select a number',
      body: c.numbers.map((n) => radio({ label: n, checked: false, onSelect: () => { close(); openThread(ctx, n); } })),
      buttons: [{ label: 'Cancel', onClick: close }],
    }),
    onCancel: close,
  };
}

export const newConversationActivity: ActivityDef<NewConversationState> = {
  name: NEW_CONVERSATION,
  create: (intent) => ({ text: typeof intent.extras.text === 'string' ? intent.extras.text : null, pick: null }),
  render: (ctx) => {
    const query = ctx.fields[FIELD] ?? '';
    const contacts = contactList(ctx.sys);
    const shown = contacts.filter((c) => matches(c, query));
    const address: ViewSpec[] = [
      strip({
        cls: W.EditText, field: FIELD, id: 'new_conversation_address', hint: 'Add Contact or Number…', weight: 1,
        onSubmit: () => confirm(ctx, shown), pad: [14, 16, 14, 16], style: { border: 'outline', radius: 4 },
      }),
    ];
    if (looksLikeNumber(query)) address.push(iconButton('check', 'Confirm selection', () => confirm(ctx, shown), { id: 'new_conversation_confirm', color: 'primary' }));
    const body: ViewSpec[] = [row(address, { pad: [8, 16, 8, 16], gap: 4 })];
    if (shown.length) {
      body.push(list('contacts', shown.map((c) => contactRow(ctx, c)), { id: 'contacts_list' }));
    } else {
      body.push(caption(contacts.length ? 'No contacts found' : 'No contacts with phone numbers have been found', { id: 'no_contacts_placeholder', align: 'center', pad: [24, 32, 8, 32] }));
    }
    const view: ActivityView = {
      body: screen({ appBar: appBar({ title: 'New conversation', onBack: () => ctx.nav.finish() }), body }),
    };
    const pick = numberPicker(ctx, contacts);
    if (pick) view.dialog = pick;
    return view;
  },
};
