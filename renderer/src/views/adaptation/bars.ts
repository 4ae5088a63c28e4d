import type { AdaptationReport } from '../../../../core/api/types.js';

/**
 * The before / after bars of an adaptation report: the overall success rate (mean over evaluation
 * seeds), then each held-out template's, as uPlot's columns (one x per group, a before and an after
 * series), and the deltas in points.
 */
export interface BarRow {
  label: string;
  /** The template's difficulty; null for the overall row. */
  difficulty: string | null;
  before: number | null;
  after: number | null;
  /** after − before in percentage points; null when a phase did not run (stopped). */
  deltaPoints: number | null;
}

export function barRows(r: AdaptationReport): BarRow[] {
  const points = (before: number | null, after: number | null) => (before === null || after === null ? null : (after - before) * 100);
  const overall: BarRow = {
    label: 'Overall', difficulty: null, before: r.before?.successRate ?? null, after: r.after?.successRate ?? null,
    deltaPoints: r.delta === null ? null : r.delta * 100,
  };
  // perTemplate is filled only when both phases ran; otherwise each phase's own per-template rates.
  const templates = r.perTemplate.length
    ? r.perTemplate.map((t) => ({ label: t.templateId, difficulty: t.difficulty, before: t.before, after: t.after, deltaPoints: points(t.before, t.after) }))
    : (r.before ?? r.after)?.perTemplate.map((t) => {
      const before = r.before?.perTemplate.find((x) => x.templateId === t.templateId)?.successRate ?? null;
      const after = r.after?.perTemplate.find((x) => x.templateId === t.templateId)?.successRate ?? null;
      return { label: t.templateId, difficulty: t.difficulty, before, after, deltaPoints: points(before, after) };
    }) ?? [];
  return [overall, ...templates];
}

/** uPlot's data: x = group index, then the before and after rates (null: no bar). */
export function barColumns(rows: readonly BarRow[]): [number[], Array<number | null>, Array<number | null>] {
  return [rows.map((_, i) => i), rows.map((r) => r.before), rows.map((r) => r.after)];
}

/** "+58.3" / "−4.2" / "0.0" points; "n/a" when a phase did not run. */
export function formatPoints(p: number | null): string {
  if (p === null || !Number.isFinite(p)) return 'n/a';
  const rounded = Math.round(p * 10) / 10;
  if (rounded === 0) return '0.0';
  return `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toFixed(1)}`;
}

export function formatRate(r: number | null): string {
  return r === null || !Number.isFinite(r) ? '–' : `${(r * 100).toFixed(1)}%`;
}
