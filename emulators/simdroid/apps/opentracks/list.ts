import type { ActivityDef, ActivityView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, column, fill, list, row, screen, strip, text } from '../../view/widgets.js';
import { listTracks, type TrackRow } from './db.js';
import { listDate, timeAndDistance, timeOfDay } from './format.js';

/**
 * TrackListActivity: every recorded track, newest first, as track_list_item rows — the activity
 * type's icon (its content description names the type, the `category` column), the name, the day
 * ("Today", "Yesterday", "Oct 12, 2023"), the total time and distance ("1:30:00 (5.23 mi)") and the
 * start time ("17:30"). A tap opens the track's statistics (TrackRecordedActivity).
 */
export const TRACK_LIST = 'de.dennisguse.opentracks.TrackListActivity';
export const TRACK_RECORDED = 'de.dennisguse.opentracks.TrackRecordedActivity';
export const LIST_KEY = 'tracks';

function trackRow(t: TrackRow, now: number, open: () => void): ViewSpec {
  const category = t.category ?? '';
  const icon = strip({
    cls: W.ImageView, id: 'track_list_item_icon', desc: category || 'Track', w: 24, h: 24,
    style: { icon: 'track', iconColor: 'primary' },
  });
  const small = { size: 13, pad: 0, fg: 'onSurfaceVariant' } as const;
  const top = row([
    { ...text(t.name ?? '', { id: 'track_list_item_name', size: 16, pad: 0, lines: 1 }), weight: 1 },
    text(listDate(t.starttime, now), { ...small, id: 'track_list_item_date', w: 'wrap' }),
  ], { gap: 8 });
  const second = row([
    { ...text(timeAndDistance(t.totaltime, t.totaldistance), { ...small, id: 'track_list_item_time_distance', lines: 1 }), weight: 1 },
    text(timeOfDay(t.starttime), { ...small, id: 'track_list_item_time', w: 'wrap' }),
  ], { gap: 8, pad: [2, 0, 0, 0] });
  return row([icon, column([top, second], { weight: 1, pad: [0, 0, 0, 8] })], {
    id: 'track_list_item', clickable: true, onClick: open, pad: [12, 16, 12, 12], style: { divider: true },
  });
}

function render(ctx: Parameters<ActivityDef['render']>[0]): ActivityView {
  const now = ctx.sys.clock.now();
  const tracks = listTracks(ctx.app.db);
  const rows = tracks.map((t) => trackRow(t, now, () => ctx.nav.start(TRACK_RECORDED, { trackId: t._id })));
  const body = rows.length
    ? list(LIST_KEY, rows, { id: 'track_list' })
    : column([fill(), text('Start recording your first track with the button below.', { align: 'center', fg: 'onSurfaceVariant', id: 'track_list_empty_view' }), fill()], { h: 'fill' });
  return { body: screen({ appBar: appBar({ title: 'OpenTracks' }), body: [body] }) };
}

export const trackList: ActivityDef<Record<string, never>> = {
  name: TRACK_LIST,
  create: () => ({}),
  render,
};
