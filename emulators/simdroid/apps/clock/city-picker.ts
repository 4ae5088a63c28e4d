import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, iconButton, list, row, screen, searchBar, strip, text } from '../../view/widgets.js';
import { CITIES, type City } from './cities.js';
import { CITY_SELECTION } from './clock-tab.js';
import { uses24h } from './common.js';
import { addCity, listCities, removeCity } from './db.js';
import { clockTimeAt } from './format.js';

/**
 * CitySelectionActivity: every city with its current time and a check box; tapping a row adds or
 * removes that world clock. Selected cities are listed first, the rest alphabetically under letter
 * headers; the toolbar's Search filters by name.
 */
interface CityPickerState {
  searching: boolean;
}

type PickerCtx = ActivityContext<CityPickerState>;

const QUERY = 'city_query';

function cityRow(ctx: PickerCtx, c: City, selected: boolean, now: number): ViewSpec {
  return row([
    column([
      text(c.name, { id: 'city_name', size: 16, pad: 0, lines: 1 }),
      caption(clockTimeAt(now + c.offset * 60_000, uses24h(ctx)), { id: 'city_time', pad: 0 }),
    ], { weight: 1 }),
    strip({ cls: W.CheckBox, id: 'city_onoff', checkable: true, checked: selected, w: 48, pad: 0 }),
  ], {
    id: 'city_item', clickable: true, pad: [8, 16, 8, 24], gap: 8, desc: c.name,
    onClick: () => {
      if (selected) removeCity(ctx.app.db, c.id);
      else addCity(ctx.app.db, c);
    },
  });
}

function header(label: string): ViewSpec {
  return text(label, { id: 'index', size: 14, bold: true, fg: 'primary', pad: [16, 24, 4, 24] });
}

function closeSearch(ctx: PickerCtx): void {
  ctx.s.searching = false;
  ctx.fields[QUERY] = '';
  ctx.nav.hideKeyboard();
}

export const citySelection: ActivityDef<CityPickerState> = {
  name: CITY_SELECTION,
  create: () => ({ searching: false }),
  render: (ctx) => {
    const now = ctx.sys.clock.now();
    const chosen = new Set(listCities(ctx.app.db).map((c) => c.city_id));
    const q = (ctx.fields[QUERY] ?? '').trim().toLowerCase();
    const rows: ViewSpec[] = [];
    if (q) {
      for (const c of CITIES) if (c.name.toLowerCase().includes(q)) rows.push(cityRow(ctx, c, chosen.has(c.id), now));
    } else {
      const selected = CITIES.filter((c) => chosen.has(c.id));
      if (selected.length) rows.push(header('Selected cities'), ...selected.map((c) => cityRow(ctx, c, true, now)));
      let letter = '';
      for (const c of CITIES) {
        if (c.name[0] !== letter) {
          letter = c.name[0]!;
          rows.push(header(letter));
        }
        rows.push(cityRow(ctx, c, chosen.has(c.id), now));
      }
    }
    const top = ctx.s.searching
      ? searchBar({ field: QUERY, hint: 'Search cities', id: 'search_src_text', onBack: () => closeSearch(ctx) })
      : appBar({
        title: 'Select cities',
        onBack: () => ctx.nav.finish(),
        actions: [iconButton('search', 'Search', () => {
          ctx.s.searching = true;
          ctx.nav.focus(QUERY);
        }, { id: 'menu_item_search' })],
      });
    const body = q && rows.length === 0
      ? column([text(`No results for “${ctx.fields[QUERY]!.trim()}”`, { align: 'center', id: 'empty_view' })], { pad: [32, 0, 0, 0] })
      : list('cities', rows, { id: 'cities_list' });
    return { body: screen({ appBar: top, body: [body] }) };
  },
  onBack: (ctx) => {
    if (!ctx.s.searching) return false;
    closeSearch(ctx);
    return true;
  },
};
