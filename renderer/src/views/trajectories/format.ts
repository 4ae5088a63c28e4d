import type { RunKind, StoredStep } from '../../../../core/api/types.js';
import { stepLine } from './overlay.js';

/** Display helpers for the episode table and the replay viewer. */

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const pad = (n: number) => String(n).padStart(2, '0');

export { formatTime } from '../../time-format.js';

/** An <input type="date"> value (local day) for an epoch time, and back; `end` gives the next midnight (exclusive end). */
export function toDateInput(epochMs: number | null, end = false): string {
  if (epochMs === null) return '';
  const d = new Date(end ? epochMs - 1 : epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function fromDateInput(value: string, end = false): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return value ? Number.NaN : null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (end ? 1 : 0));
  return d.getTime();
}

export const formatCount = (n: number) => n.toLocaleString('en-US');

export interface DiffRow {
  index: number;
  mine: string | null;
  theirs: string | null;
  same: boolean;
}

/** Two episodes' steps side by side, by index, and the first index where what was done differs. */
export function stepDiff(mine: readonly StoredStep[], theirs: readonly StoredStep[]): { rows: DiffRow[]; firstDivergence: number | null } {
  const rows: DiffRow[] = [];
  let firstDivergence: number | null = null;
  for (let i = 0; i < Math.max(mine.length, theirs.length); i++) {
    const a = mine[i] ? stepLine(mine[i]!) : null;
    const b = theirs[i] ? stepLine(theirs[i]!) : null;
    const same = a !== null && a === b;
    if (!same && firstDivergence === null) firstDivergence = i;
    rows.push({ index: i, mine: a, theirs: b, same });
  }
  return { rows, firstDivergence };
}

/** A rollout's reward or advantage: 2 decimals, '–' when not scored. */
export function formatScore(v: number | null): string {
  return v === null ? '–' : v.toFixed(2);
}

/** How each kind of run reads (the run filter groups runs by it; the replay header names it). */
export const RUN_KIND_LABELS: Record<RunKind, string> = {
  env: 'outside agent',
  single: 'step-through',
  suite: 'suite',
  training: 'training',
  import: 'imported',
};

/** `#12 t3a on unseen-app`, with the kind when asked. */
export function runLabel(r: { id: number; name: string; kind: RunKind }, withKind = false): string {
  return `#${r.id} ${r.name}${withKind ? ` (${RUN_KIND_LABELS[r.kind]})` : ''}`;
}
