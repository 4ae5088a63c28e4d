import type { ActivityDef, ActivityView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, row, screen, scroll, text } from '../../view/widgets.js';
import { getTrack } from './db.js';
import { formatDistance, formatElapsed, formatElevation, formatSpeed, longDate, timeOfDay } from './format.js';
import { TRACK_RECORDED } from './list.js';

/**
 * TrackRecordedActivity's statistics tab for one track: the activity type, the day and start time,
 * total and moving time, distance, average and maximum speed, elevation gain and loss, and the
 * description, each a label over its value (ids after the real stats items).
 */
interface DetailState {
  trackId: number;
}

function stat(label: string, value: string, id: string): ViewSpec {
  return column([
    caption(label, { pad: 0, size: 13 }),
    text(value, { id, size: 20, pad: [2, 0, 0, 0] }),
  ], { weight: 1, pad: [8, 16, 8, 16] });
}

function render(ctx: Parameters<ActivityDef<DetailState>['render']>[0]): ActivityView {
  const t = getTrack(ctx.app.db, ctx.s.trackId);
  const up = () => ctx.nav.finish();
  if (!t) {
    return { body: screen({ appBar: appBar({ title: 'Track', onBack: up }), body: [text('This track no longer exists.', { fg: 'onSurfaceVariant' })] }) };
  }
  const rows: ViewSpec[] = [
    stat('Activity type', t.category ?? '', 'stats_activity_type'),
    stat('Date', longDate(t.starttime), 'stats_start_date'),
    row([stat('Start time', timeOfDay(t.starttime), 'stats_start_time'), stat('Distance', formatDistance(t.totaldistance), 'stats_distance')]),
    row([stat('Total time', formatElapsed(t.totaltime), 'stats_total_time'), stat('Moving time', formatElapsed(t.movingtime), 'stats_moving_time')]),
    row([stat('Average speed', formatSpeed(t.avgspeed), 'stats_average_speed'), stat('Max speed', formatSpeed(t.maxspeed), 'stats_max_speed')]),
    row([stat('Elevation gain', formatElevation(t.elevationgain), 'stats_elevation_gain'), stat('Elevation loss', formatElevation(t.elevationloss), 'stats_elevation_loss')]),
  ];
  if (t.description) rows.push(stat('Description', t.description, 'stats_description'));
  return { body: screen({ appBar: appBar({ title: t.name ?? '', onBack: up }), body: [scroll('stats', rows, { id: 'stats_scroll' })] }) };
}

export const trackRecorded: ActivityDef<DetailState> = {
  name: TRACK_RECORDED,
  create: (intent) => ({ trackId: Number(intent.extras.trackId ?? -1) }),
  render,
};
