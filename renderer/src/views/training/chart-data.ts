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

/** What the x axis counts, as W&B and TensorBoard offer: the iteration (epoch for SFT), environment steps, or time. */
export type ChartXAxis = 'iteration' | 'steps' | 'time';

/** The trainers' metrics the x axes are built from (core/rl/grpo-loop.ts METRIC, core/rl/sft.ts SFT_METRIC). */
const X_METRIC = { envSteps: 'rollout/env_steps', stepsPerS: 'perf/steps_per_s', rolloutS: 'perf/rollout_s', iterationS: 'perf/iteration_s', epochS: 'perf/epoch_s' } as const;

/** Environment steps an iteration took: its own count, else (runs recorded before it was kept) rate × rollout time. */
function envStepsOf(r: IterationMetricsRow): number | null {
  const m = r.metrics;
  if (m[X_METRIC.envSteps] !== undefined) return m[X_METRIC.envSteps]!;
  const rate = m[X_METRIC.stepsPerS];
  const secs = m[X_METRIC.rolloutS];
  return rate !== undefined && secs !== undefined ? Math.round(rate * secs) : null;
}

/**
 * Each row's x on an axis: the iteration; the environment steps done by the end of it; or the seconds of training by
 * the end of it (the iterations' or epochs' own timings summed: a paused or resumed run's idle time is left out).
 * Null for every row when the run does not record what the axis counts (an SFT run has no environment steps).
 */
export function xValues(rows: readonly IterationMetricsRow[], axis: ChartXAxis): number[] | null {
  switch (axis) {
    case 'iteration':
      return rows.map((r) => r.iteration);
    case 'steps': {
      let total = 0;
      const out: number[] = [];
      for (const r of rows) {
        const n = envStepsOf(r);
        if (n === null) return null;
        out.push((total += n));
      }
      return out;
    }
    case 'time': {
      let total = 0;
      const out: number[] = [];
      for (const r of rows) {
        const s = r.metrics[X_METRIC.iterationS] ?? r.metrics[X_METRIC.epochS];
        if (s === undefined) return null;
        out.push((total += s));
      }
      return out;
    }
  }
}

/** An x value as the axis and legend show it: 12, 12.3k steps, 1 min 05 s. */
export function formatX(v: number, axis: ChartXAxis): string {
  switch (axis) {
    case 'iteration':
      return String(v);
    case 'steps':
      return v >= 10_000 ? `${(v / 1000).toFixed(v >= 100_000 ? 0 : 1)}k` : String(Math.round(v));
    case 'time': {
      const s = Math.round(v);
      if (s < 60) return `${s} s`;
      if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
      return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
    }
  }
}

export interface ChartSeriesSpec {
  label: string;
  runId: number;
  color: string;
}

export const RUN_COLORS = ['#2f6fed', '#e8590c', '#2b8a3e', '#ae3ec9', '#c92a2a', '#1098ad'];

/** A chart's data: uPlot's columns (x, then one smoothed line per run), each run's raw values and iterations by x index. */
export interface ChartColumns {
  data: Array<Array<number | null>>;
  series: ChartSeriesSpec[];
  /** Per run, its raw values on the shared x (null where it has none); drawn faint behind its line when smoothing. */
  raw: Array<Array<number | null>>;
  /** Per run, the iteration at each shared x (null where it has none): a click on a point opens that iteration. */
  iterations: Array<Array<number | null>>;
  /** Runs left out because they do not record what the x axis counts. */
  skipped: number[];
}

/**
 * uPlot's columns for one metric over several runs: the union of their x values, and per run its values (null where
 * it lacks that x), smoothed by `smoothing` (TensorBoard's EMA) with the raw values kept beside, as TensorBoard and
 * W&B draw them: one legend entry per run, the raw line faint behind.
 */
export function chartColumns(runs: readonly ChartRun[], metric: string, smoothing: number, axis: ChartXAxis = 'iteration'): ChartColumns {
  const placed = runs.map((r) => ({ run: r, xs: xValues(r.rows, axis) }));
  const usable = placed.filter((p): p is { run: ChartRun; xs: number[] } => p.xs !== null);
  const xs = [...new Set(usable.flatMap((p) => p.xs))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const out: ChartColumns = { data: [xs], series: [], raw: [], iterations: [], skipped: placed.filter((p) => p.xs === null).map((p) => p.run.runId) };
  usable.forEach(({ run, xs: own }) => {
    const values: Array<number | null> = xs.map(() => null);
    const iterations: Array<number | null> = xs.map(() => null);
    run.rows.forEach((row, i) => {
      const j = at.get(own[i]!)!;
      values[j] = row.metrics[metric] ?? null;
      iterations[j] = row.iteration;
    });
    const k = runs.indexOf(run);
    out.data.push(smoothing > 0 ? smoothSeries(values, smoothing) : values);
    out.raw.push(values);
    out.iterations.push(iterations);
    out.series.push({ label: run.label ?? `run ${run.runId}`, runId: run.runId, color: RUN_COLORS[k % RUN_COLORS.length]! });
  });
  return out;
}

/** The chart as CSV: the x column, then each run's value and (when smoothing) its smoothed value; empty where it has none. */
export function chartCsv(c: ChartColumns, axis: ChartXAxis, smoothing: number): string {
  const cell = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
  const quote = (t: string) => (/[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);
  const head = [axis, ...c.series.flatMap((s) => (smoothing > 0 ? [s.label, `${s.label} (smoothed ${smoothing})`] : [s.label]))];
  const lines = [head.map(quote).join(',')];
  c.data[0]!.forEach((x, i) => {
    lines.push([cell(x), ...c.series.flatMap((_, k) => (smoothing > 0 ? [cell(c.raw[k]![i]), cell(c.data[k + 1]![i])] : [cell(c.raw[k]![i])]))].join(','));
  });
  return `${lines.join('\n')}\n`;
}

/** A config's leaves by dotted path (arrays and nulls are leaves). */
function leaves(obj: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = obj;
  return out;
}

/** Where two runs' configs differ, leaf by leaf, sorted by path (W&B's run comparer); `undefined` where one lacks it. */
export function configDiff(a: Record<string, unknown>, b: Record<string, unknown>): Array<{ path: string; a: unknown; b: unknown }> {
  const la = leaves(a);
  const lb = leaves(b);
  return [...new Set([...Object.keys(la), ...Object.keys(lb)])].sort()
    .filter((p) => JSON.stringify(la[p]) !== JSON.stringify(lb[p]))
    .map((path) => ({ path, a: la[path], b: lb[path] }));
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
