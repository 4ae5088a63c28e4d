/**
 * The renderer's one way to show a point in time: local, sortable and compact (2025-03-14 09:26:53),
 * in every table and list, so dates read the same across views whatever the browser's locale.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** Local date and time: 2025-03-14 09:26:53 ('—' for none). */
export function formatTime(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '—';
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(epochMs)}`;
}

/** The time of day alone (09:26:53), for lines within one job's log. */
export function formatClock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
