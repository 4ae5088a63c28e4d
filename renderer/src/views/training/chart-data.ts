import type { IterationMetricsRow } from '../../../../core/api/types.js';

/** One metric over a run as uPlot's columns: iterations, and values (null where the iteration lacks it). */
export function seriesOf(rows: readonly IterationMetricsRow[], metric: string): [number[], Array<number | null>] {
  return [rows.map((r) => r.iteration), rows.map((r) => r.metrics[metric] ?? null)];
}

/** A metric value for a table cell or a chart title: 3 significant digits, '–' when absent. */
export function formatMetric(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  return Math.abs(v) >= 1000 || Math.abs(v) < 0.001 ? v.toExponential(2) : String(Number(v.toPrecision(3)));
}

/** The y range of a chart: the data with 5% padding, or ±10% (±1 at zero) around a constant. */
export function yRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    const pad = Math.abs(min) * 0.1 || 1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}
