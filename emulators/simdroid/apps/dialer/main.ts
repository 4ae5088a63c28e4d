import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { column, fab, fill, stack, iconButton, list, listItem, row, screen, searchBar, strip, tabs, text } from '../../view/widgets.js';
import { CALL_TYPE_LABEL, dialerContacts, recentCalls, type DialerContact } from './calls.js';
import { INCALL_ACTIVITY } from './incall.js';

/**
 * The Phone app's main screen (GoogleDialtactsActivity, the activity AndroidWorld launches):
 * Favorites (starred contacts), Recents (the call log) and Contacts tabs over the Contacts provider,
 * a search box over contacts, and the key pad behind its floating button; Call opens the in-call screen.
 */
export const DIALTACTS_ACTIVITY = 'com.google.android.dialer.extensions.GoogleDialtactsActivity';
export const DIGITS_FIELD = 'digits';
const SEARCH_FIELD = 'search';

type Tab = 'favorites' | 'recents' | 'contacts';

interface DialtactsState {
  tab: Tab;
  pad: boolean;
}

type Ctx = ActivityContext<DialtactsState>;

const KEYS: ReadonlyArray<[string, string]> = [
  ['1', ''], ['2', 'ABC'], ['3', 'DEF'], ['4', 'GHI'], ['5', 'JKL'], ['6', 'MNO'],
  ['7', 'PQRS'], ['8', 'TUV'], ['9', 'WXYZ'], ['*', ''], ['0', '+'], ['#', ''],
];

function call(ctx: Ctx, number: string): void {
  if (!number.trim()) return;
  // The key pad is cleared and closed behind the call, as the app leaves it.
  ctx.fields[DIGITS_FIELD] = '';
  ctx.s.pad = false;
  ctx.nav.start(INCALL_ACTIVITY, { number: number.trim() });
}

function key(ctx: Ctx, digit: string, letters: string): ViewSpec {
  return strip({
    cls: W.FrameLayout, id: `dialpad_key_${digit === '*' ? 'star' : digit === '#' ? 'pound' : digit}`, desc: digit, clickable: true, h: 64,
    onClick: () => { ctx.fields[DIGITS_FIELD] = (ctx.fields[DIGITS_FIELD] ?? '') + digit; },
    layout: 'column',
    children: [
      text(digit, { id: 'dialpad_key_number', size: 28, align: 'center', pad: 0 }),
      text(letters, { id: 'dialpad_key_letters', size: 11, align: 'center', fg: 'onSurfaceVariant', pad: 0 }),
    ],
  });
}

function dialpad(ctx: Ctx): ViewSpec {
  const rows: ViewSpec[] = [];
  for (let i = 0; i < KEYS.length; i += 3) rows.push(row(KEYS.slice(i, i + 3).map(([d, l]) => key(ctx, d, l)), { h: 64 }));
  const digitsRow = row([
    iconButton('arrow_back', 'Navigate up', () => { ctx.s.pad = false; }),
    strip({ cls: W.EditText, field: DIGITS_FIELD, id: 'digits', accept: 'phone', weight: 1, pad: [12, 8, 12, 8], style: { size: 28, textAlign: 'center' } }),
    iconButton('backspace', 'backspace', () => { ctx.fields[DIGITS_FIELD] = (ctx.fields[DIGITS_FIELD] ?? '').slice(0, -1); }, { id: 'deleteButton' }),
  ], { h: 72, pad: [4, 8, 4, 8] });
  const dial = strip({
    cls: W.ImageButton, id: 'dialpad_voice_call_button', desc: 'dial', w: 64, h: 64, onClick: () => call(ctx, ctx.fields[DIGITS_FIELD] ?? ''),
    style: { bg: '#1E8E3E', radius: 32, icon: 'phone', iconColor: '#FFFFFF' },
  });
  return column([fill(), digitsRow, ...rows, row([fill(), dial, fill()], { h: 88, pad: [12, 0, 12, 0] })], {
    id: 'dialpad_view', h: 'fill', style: { bg: 'surface' },
  });
}

function contactRow(ctx: Ctx, c: DialerContact): ViewSpec {
  const letter = c.name[0]?.toUpperCase() ?? '?';
  return listItem({
    title: c.name, subtitle: c.phone ?? undefined, leading: { letter, color: '#1A73E8' },
    onClick: () => { if (c.phone) call(ctx, c.phone); },
    trailing: c.phone ? iconButton('phone', `Call ${c.name}`, () => call(ctx, c.phone!)) : undefined,
  });
}

function body(ctx: Ctx): ViewSpec {
  const query = (ctx.fields[SEARCH_FIELD] ?? '').trim().toLowerCase();
  const contacts = dialerContacts(ctx.sys).filter((c) => !query || c.name.toLowerCase().includes(query) || (c.phone ?? '').includes(query));
  if (query) return list('search', contacts.map((c) => contactRow(ctx, c)), { empty: 'No contacts found' });
  switch (ctx.s.tab) {
    case 'favorites':
      return list('favorites', contacts.filter((c) => c.starred).map((c) => contactRow(ctx, c)), { empty: 'No favorites yet' });
    case 'contacts':
      return list('contacts', contacts.map((c) => contactRow(ctx, c)), { empty: 'No contacts' });
    case 'recents': {
      const calls = recentCalls(ctx.sys);
      const names = new Map(contacts.filter((c) => c.phone).map((c) => [c.phone!.replace(/\D/g, '').slice(-10), c.name]));
      return list('recents', calls.map((r) => {
        const name = r.name ?? names.get(r.number.replace(/\D/g, '').slice(-10)) ?? null;
        return listItem({
          title: name ?? r.number, subtitle: `${CALL_TYPE_LABEL[r.type] ?? 'Call'} · ${ctx.sys.clock.formatLocal(r.date, '%b %e, %I:%M %p')}`,
          leading: 'phone', trailing: iconButton('phone', `Call ${name ?? r.number}`, () => call(ctx, r.number)),
        });
      }), { empty: 'No recent calls' });
    }
  }
}

function render(ctx: Ctx) {
  const { s } = ctx;
  if (s.pad) return { body: screen({ body: [dialpad(ctx)] }) };
  const tabBar = tabs((['favorites', 'recents', 'contacts'] as const).map((t) => ({
    label: t[0]!.toUpperCase() + t.slice(1), id: `tab_${t}`, selected: s.tab === t, icon: t === 'favorites' ? 'star' : t === 'recents' ? 'clock' : 'people',
    onClick: () => { s.tab = t; },
  })), { id: 'bottom_navigation_view' });
  return {
    // The key pad button floats over the list, above the tab bar.
    body: screen({
      appBar: searchBar({ field: SEARCH_FIELD, hint: 'Search contacts', id: 'open_search_bar_text_view' }),
      body: [stack([body(ctx), fab('apps_grid', 'key pad', () => { s.pad = true; }, { id: 'dialpad_fab' })], { h: 'fill' })],
      bottom: tabBar,
    }),
  };
}

export const dialtacts: ActivityDef<DialtactsState> = {
  name: DIALTACTS_ACTIVITY,
  create: () => ({ tab: 'favorites', pad: false }),
  render,
  onBack: (ctx) => {
    if (!ctx.s.pad) return false;
    ctx.s.pad = false;
    return true;
  },
};
