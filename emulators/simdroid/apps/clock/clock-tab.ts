import { W, type ViewSpec } from '../../view/spec.js';
import { caption, column, list, row, strip, text } from '../../view/widgets.js';
import { fabBar, fabButton, uses24h, type Ctx } from './common.js';
import { listAlarms, listCities, type SelectedCity } from './db.js';
import { DAY_NAMES, clockTimeAt, cityDifference, nextAlarm, nextAlarmLine, shortDate } from './format.js';

/**
 * The Clock tab: the device's time and date in large type, the next alarm, then a card per
 * selected world city with its time and difference; the FAB opens the city chooser.
 */
export const CITY_SELECTION = 'com.android.deskclock.worldclock.CitySelectionActivity';

function header(ctx: Ctx, now: number): ViewSpec {
  const h24 = uses24h(ctx);
  const parts: ViewSpec[] = [
    text(clockTimeAt(now, h24), { id: 'digital_clock', size: 64, pad: [24, 24, 0, 24] }),
    text(shortDate(now), { id: 'date', size: 16, pad: [4, 24, 0, 24], fg: 'onSurfaceVariant' }),
  ];
  const next = nextAlarm(listAlarms(ctx.app.db), now);
  if (next) {
    const line = nextAlarmLine(next.at, h24);
    parts.push(row([
      strip({ cls: W.ImageView, w: 20, h: 20, style: { icon: 'alarm', iconSize: 18, iconColor: 'onSurfaceVariant' } }),
      caption(line, { id: 'nextAlarm', pad: 0, desc: `Next alarm: ${DAY_NAMES[new Date(next.at).getUTCDay()]} ${clockTimeAt(next.at, h24)}` }),
    ], { pad: [8, 24, 0, 24], gap: 8, h: 36 }));
  }
  parts.push({ cls: W.View, h: 16 });
  return column(parts, { id: 'main_clock_frame' });
}

function cityCard(ctx: Ctx, c: SelectedCity, now: number): ViewSpec {
  const at = now + c.utc_offset_minutes * 60_000;
  return column([
    row([
      column([
        text(c.name, { id: 'city_name', size: 20, pad: 0, lines: 1 }),
        caption(cityDifference(c.utc_offset_minutes, now), { id: 'hours_ahead', pad: [4, 0, 0, 0], lines: 1 }),
      ], { weight: 1 }),
      text(clockTimeAt(at, uses24h(ctx)), { id: 'digital_clock', size: 28, w: 'wrap', pad: [0, 0, 0, 8] }),
    ], { id: 'city_item', pad: [16, 20, 16, 20], style: { variant: 'card', radius: 24 } }),
  ], { pad: [6, 12, 6, 12] });
}

export function clockBody(ctx: Ctx): ViewSpec[] {
  const now = ctx.sys.clock.now();
  const cities = listCities(ctx.app.db);
  return [
    list('cities', [header(ctx, now), ...cities.map((c) => cityCard(ctx, c, now))], { id: 'cities' }),
    fabBar({ fab: fabButton('globe', 'Add city', () => ctx.nav.start(CITY_SELECTION)) }),
  ];
}
