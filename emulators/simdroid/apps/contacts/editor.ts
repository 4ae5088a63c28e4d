import type { ActivityContext, ActivityDef, Json } from '../../runtime/app.js';
import { CONTACTS_DB } from '../../system/providers.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, button, column, dialog, radio, row, screen, scroll, strip, text, textField } from '../../view/widgets.js';
import { getContact, isEmptyDraft, PHONE_TYPE_MOBILE, PHONE_TYPE_ORDER, PHONE_TYPES, saveContact, type Draft } from './db.js';
import { EDITOR, QUICK_CONTACT } from './names.js';

/**
 * ContactEditorActivity: "Create contact" (from the FAB, or `am start` with ContactsContract's
 * Insert extras name/phone/email/company) and "Edit contact" (extra `id`). Save writes the provider
 * (the same raw contact when editing); it is disabled until there is a name or a number. Leaving
 * with unsaved changes asks "Discard changes?".
 */
export interface EditorState {
  /** The raw contact being edited; null when creating. */
  id: number | null;
  phones: number;
  emails: number;
  /** Field values when the editor opened, to tell whether anything changed. */
  initial: Record<string, string>;
  dialog: null | 'discard' | { kind: 'phone_type'; index: number };
}

type Ctx = ActivityContext<EditorState>;

const phoneKey = (i: number) => `phone_${i}`;
const emailKey = (i: number) => `email_${i}`;
/** A phone's label, kept with the form's fields (so a change counts as unsaved). */
const phoneTypeKey = (i: number) => `phone_type_${i}`;

function phoneType(ctx: Ctx, i: number): number {
  const v = Number(ctx.fields[phoneTypeKey(i)] ?? ctx.s.initial[phoneTypeKey(i)] ?? PHONE_TYPE_MOBILE);
  return PHONE_TYPES[v] ? v : PHONE_TYPE_MOBILE;
}

function str(v: Json | undefined): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

function readDraft(ctx: Ctx): Draft {
  const f = ctx.fields;
  return {
    given: f.first_name ?? '',
    family: f.last_name ?? '',
    company: f.company ?? '',
    phones: Array.from({ length: ctx.s.phones }, (_, i) => f[phoneKey(i)] ?? ''),
    phoneTypes: Array.from({ length: ctx.s.phones }, (_, i) => phoneType(ctx, i)),
    emails: Array.from({ length: ctx.s.emails }, (_, i) => f[emailKey(i)] ?? ''),
  };
}

function isDirty(ctx: Ctx): boolean {
  const keys = new Set([...Object.keys(ctx.fields), ...Object.keys(ctx.s.initial)]);
  return [...keys].some((k) => (ctx.fields[k] ?? '').trim() !== (ctx.s.initial[k] ?? '').trim());
}

/** Up or Back: leave at once when nothing changed, else ask first. */
function leave(ctx: Ctx): void {
  if (isDirty(ctx)) {
    ctx.nav.hideKeyboard();
    ctx.s.dialog = 'discard';
  } else ctx.nav.finish();
}

function save(ctx: Ctx): void {
  const draft = readDraft(ctx);
  if (isEmptyDraft(draft)) return;
  const db = ctx.sys.db(CONTACTS_DB);
  if (ctx.s.id !== null && !getContact(db, ctx.s.id)) {
    ctx.nav.toast('This contact no longer exists');
    ctx.nav.finish();
    return;
  }
  const id = saveContact(db, ctx.s.id, draft);
  if (ctx.s.id === null) ctx.nav.replace(QUICK_CONTACT, { id });
  else ctx.nav.finish();
}

/** A row of the form: the section's icon on the left (first row only), its fields on the right. */
function section(icon: string | null, fields: ViewSpec[]): ViewSpec {
  // The icon lines up with the first field, not the middle of the group.
  const lead = column(icon ? [strip({ cls: W.ImageView, h: 68, style: { icon, iconColor: 'onSurfaceVariant' } })] : [], { w: 24 });
  return row([lead, column(fields, { weight: 1 })], { pad: [0, 0, 0, 16] });
}

function addButton(label: string, id: string, onClick: () => void): ViewSpec {
  return row([{ cls: W.View, w: 40 }, button(label, onClick, { variant: 'text', w: 'wrap', id, icon: 'add' })], { pad: [0, 16, 4, 0] });
}

/** The label picker: Phone.TYPE_* labels as radio buttons; picking one closes it. */
function phoneTypeDialog(ctx: Ctx, index: number, close: () => void) {
  return {
    spec: dialog({
      body: PHONE_TYPE_ORDER.map((t) => radio({
        label: PHONE_TYPES[t]!, checked: phoneType(ctx, index) === t,
        onSelect: () => { ctx.fields[phoneTypeKey(index)] = String(t); close(); },
      })),
      buttons: [{ label: 'Cancel', onClick: close }],
    }),
    onCancel: close,
  };
}

export const editor: ActivityDef<EditorState> = {
  name: EDITOR,
  create: (intent, env) => {
    const x = intent.extras;
    const id = typeof x.id === 'number' ? x.id : null;
    const contact = id !== null ? getContact(env.sys.db(CONTACTS_DB), id) : undefined;
    const initial: Record<string, string> = {};
    let phones = 1;
    let emails = 1;
    if (contact) {
      Object.assign(initial, { first_name: contact.given, last_name: contact.family, company: contact.company });
      contact.phones.forEach((p, i) => { initial[phoneKey(i)] = p.value; initial[phoneTypeKey(i)] = String(p.type); });
      contact.emails.forEach((e, i) => { initial[emailKey(i)] = e.value; });
      phones = Math.max(1, contact.phones.length);
      emails = Math.max(1, contact.emails.length);
      Object.assign(env.fields, initial);
    } else {
      // ContactsContract.Intents.Insert extras pre-fill a new contact (unsaved, so Back asks).
      const [given, ...rest] = str(x.name).trim().split(/\s+/);
      const prefill: Record<string, string> = {
        first_name: given ?? '', last_name: rest.join(' '), company: str(x.company), [phoneKey(0)]: str(x.phone), [emailKey(0)]: str(x.email),
      };
      for (const [k, v] of Object.entries(prefill)) if (v) env.fields[k] = v;
    }
    return { id: contact ? contact.id : null, phones, emails, initial, dialog: null };
  },
  onBack: (ctx) => {
    if (!isDirty(ctx)) return false;
    leave(ctx);
    return true;
  },
  render: (ctx) => {
    const s = ctx.s;
    const canSave = !isEmptyDraft(readDraft(ctx));
    // Each number with its label below it (a spinner: "Mobile", described "Mobile Phone"), as the real editor has.
    const phoneFields = Array.from({ length: s.phones }, (_, i) => {
      const label = PHONE_TYPES[phoneType(ctx, i)]!;
      return column([
        textField({ field: phoneKey(i), hint: 'Phone', accept: 'phone', pad: [6, 16, 6, 0] }),
        row([text(label, {
          id: 'spinner', desc: `${label} Phone`, w: 'wrap', pad: [8, 12, 8, 12], size: 14, fg: 'primary',
          onClick: () => { ctx.nav.hideKeyboard(); s.dialog = { kind: 'phone_type', index: i }; },
        })], { pad: [0, 16, 4, 0] }),
      ]);
    });
    const emailFields = Array.from({ length: s.emails }, (_, i) => textField({ field: emailKey(i), hint: 'Email', pad: [6, 16, 6, 0] }));
    const form: ViewSpec[] = [
      text(s.id === null ? 'Saving to Device' : 'Device contact', { size: 14, fg: 'onSurfaceVariant', pad: [12, 24, 8, 24], id: 'account_header' }),
      section('person', [
        textField({ field: 'first_name', hint: 'First name', pad: [6, 16, 6, 0] }),
        textField({ field: 'last_name', hint: 'Last name', pad: [6, 16, 6, 0] }),
      ]),
      section('business', [textField({ field: 'company', hint: 'Company', pad: [6, 16, 6, 0] })]),
      section('phone', phoneFields),
      addButton('Add phone', 'add_phone', () => { s.phones += 1; }),
      section('mail', emailFields),
      addButton('Add email', 'add_email', () => { s.emails += 1; }),
    ];
    const close = () => { s.dialog = null; };
    return {
      body: screen({
        appBar: appBar({
          title: s.id === null ? 'Create contact' : 'Edit contact',
          onBack: () => leave(ctx),
          actions: [row([button('Save', () => save(ctx), { id: 'toolbar_button', w: 'wrap', enabled: canSave })], { w: 'wrap', pad: [0, 12, 0, 0] })],
        }),
        body: [scroll('editor', form, { id: 'editors' })],
      }),
      ...(s.dialog === 'discard'
        ? {
            dialog: {
              spec: dialog({
                title: 'Discard changes?',
                buttons: [{ label: 'Keep editing', onClick: close }, { label: 'Discard', onClick: () => { close(); ctx.nav.finish(); } }],
              }),
              onCancel: close,
            },
          }
        : s.dialog !== null
          ? { dialog: phoneTypeDialog(ctx, s.dialog.index, close) }
          : {}),
    };
  },
};
