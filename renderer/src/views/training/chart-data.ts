import { smoothSeries } from './health.js';
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

/**
 * The y range of a chart: the data with 5% padding, or ±10% (±1 at zero) around a constant. A constant that went
 * through the EMA differs from itself in the last bits (0.3 smoothed is 0.29999999999999993 … 0.30000000000000004):
 * a spread within a few rounding errors is a constant too, else uPlot's ticks over a 1e-16 range fail with
 * "RangeError: Invalid array length".
 */
export function yRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max - min <= 1e-9 * Math.max(Math.abs(min), Math.abs(max))) {
    const pad = Math.abs(min) * 0.1 || 1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}

/** A run drawn on a chart: the shown run first, then the overlaid ones. */
export interface ChartRun {
  runId: number;
  /** The legend's name (default `run N`). */
  label?: string;
  rows: readonly IterationMetricsRow[];
}

export interface ChartSeriesSpec {
  label: string;
  runId: number;
  /** The raw values of a smoothed run (drawn faint behind the smoothed line). */
  raw: boolean;
  color: string;
}

const RUN_COLORS = ['#2f6fed', '#e8590c', '#2b8a3e', '#ae3ec9', '#c92a2a', '#1098ad'];

/**
 * uPlot's columns for one metric over several runs: the union of their iterations, and per run its values
 * (null where it lacks the iteration), smoothed by `smoothing` (TensorBoard's EMA) with the raw values kept
 * as a faint series, as TensorBoard and W&B draw them.
 */
export function chartColumns(runs: readonly ChartRun[], metric: string, smoothing: number): { data: Array<Array<number | null>>; series: ChartSeriesSpec[] } {
  const xs = [...new Set(runs.flatMap((r) => r.rows.map((row) => row.iteration)))].sort((a, b) => a - b);
  const data: Array<Array<number | null>> = [xs];
  const series: ChartSeriesSpec[] = [];
  runs.forEach((r, k) => {
    const byIteration = new Map(r.rows.map((row) => [row.iteration, row.metrics[metric] ?? null]));
    const values = xs.map((x) => byIteration.get(x) ?? null);
    const color = RUN_COLORS[k % RUN_COLORS.length]!;
    const name = r.label ?? `run ${r.runId}`;
    if (smoothing > 0) {
      data.push(values);
      series.push({ label: `${name} (raw)`, runId: r.runId, raw: true, color });
    }
    data.push(smoothing > 0 ? smoothSeries(values, smoothing) : values);
    series.push({ label: name, runId: r.runId, raw: false, color });
  });
  return { data, series };
}

/**
 * A chart's columns for a log-scale y axis: values ≤ 0 have no logarithm, so they become gaps (uPlot would
 * draw them at -∞); the x column is kept. Also how many values were dropped, so the chart can say so.
 */
export function logScaleColumns(data: ReadonlyArray<ReadonlyArray<number | null>>): { data: Array<Array<number | null>>; dropped: number } {
  let dropped = 0;
  const out = data.map((col, i) => (i === 0 ? [...col] : col.map((v) => {
    if (v === null || v > 0) return v;
    dropped++;
    return null;
  })));
  return { data: out, dropped };
}

/** The y range of a log-scale chart: whole decades around the positive data ([1, 10] when there is none). */
export function logRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !(min > 0) || !(max > 0) || !Number.isFinite(max)) return [1, 10];
  const lo = Math.floor(Math.log10(min));
  let hi = Math.ceil(Math.log10(max));
  if (hi === lo) hi++; // a constant (or one decade's exact power): still one decade to draw in
  return [10 ** lo, 10 ** hi];
}
