import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { INTEGER_TICK_STEPS, iterationRange } from './health.js';
import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { chartColumns, formatMetric, logRange, logScaleColumns, yRange, type ChartRun } from './chart-data.js';

const HEIGHT = 130;

/** Draws a dashed vertical line at the marked iteration (a link back from a rollout in Trajectories). */
function markerPlugin(marker: () => number | null): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const at = marker();
        if (at === null) return;
        const x = u.valToPos(at, 'x', true);
        const { ctx } = u;
        ctx.save();
        ctx.strokeStyle = '#c92a2a';
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      },
    },
  };
}

/**
 * After each draw, what uPlot drew goes on the plot's element as data attributes (the canvas cannot be read
 * back as text): the y scale's range and the iteration ticks, which the end-to-end test checks.
 */
function drawnPlugin(xTicks: () => readonly number[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const el = u.root.parentElement;
        if (!el) return;
        el.dataset.yMin = String(u.scales.y?.min ?? '');
        el.dataset.yMax = String(u.scales.y?.max ?? '');
        el.dataset.xTicks = xTicks().join(',');
      },
    },
  };
}

/**
 * One metric against the iteration, drawn by uPlot (canvas) as TensorBoard and W&B users expect: the shown run
 * and any overlaid runs, an EMA-smoothed line over the faint raw values, the values under the cursor in the
 * legend, integer iteration ticks, an optional marked iteration, and a linear or log-scale y axis (`log`; the
 * head's toggle calls `onToggleLog`). Redrawn as rows arrive.
 */
export function MetricChart({ metric, label, rows, runs: given, smoothing = 0, marker = null, log = false, onToggleLog }: {
  metric: string; label: string;
  /** One run's rows (a chart of one job), or `runs`: the shown run first, then overlaid ones. */
  rows?: readonly IterationMetricsRow[]; runs?: readonly ChartRun[]; smoothing?: number; marker?: number | null;
  log?: boolean; onToggleLog?: () => void;
}) {
  const runs = useMemo(() => given ?? [{ runId: 0, label, rows: rows ?? [] }], [given, rows, label]);
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const markerRef = useRef(marker);
  markerRef.current = marker;
  const { data: linear, series } = useMemo(() => chartColumns(runs, metric, smoothing), [runs, metric, smoothing]);
  const { data, dropped } = useMemo(() => (log ? logScaleColumns(linear) : { data: linear, dropped: 0 }), [linear, log]);
  const xTicks = useRef<readonly number[]>([]);
  // The plot is rebuilt when its series change (a run overlaid, smoothing turned on or off) or its y scale, else only its data.
  const shape = series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = box.current!;
    const p = new uPlot({
      width: Math.max(160, el.clientWidth), height: HEIGHT,
      // A flat series (all zeros early in training) gets a small band around its value, not uPlot's 0–100.
      scales: {
        x: { time: false, range: (_u, min, max) => iterationRange(min, max) },
        // distr 3 is uPlot's logarithmic scale (base 10).
        y: log ? { distr: 3, log: 10, range: (_u, min, max) => logRange(min, max) } : { range: (_u, min, max) => yRange(min, max) },
      },
      // The legend shows the values under the cursor (W&B / TensorBoard hover values).
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: 'iteration', value: (_u, v) => (v === null ? '–' : String(v)) },
        ...series.map((s) => ({
          label: s.label, stroke: s.raw ? `${s.color}55` : s.color, width: s.raw ? 1 : 1.5, show: true,
          points: { show: !s.raw, size: 4 }, value: (_u: uPlot, v: number | null) => formatMetric(v),
        })),
      ],
      axes: [
        {
          size: 28, font: '10px sans-serif', incrs: INTEGER_TICK_STEPS,
          values: (_u, ticks) => ((xTicks.current = ticks), ticks.map((t) => (Number.isInteger(t) ? String(t) : ''))),
        },
        { size: 46, font: '10px sans-serif' },
      ],
      plugins: [markerPlugin(() => markerRef.current), drawnPlugin(() => xTicks.current)],
    }, data as uPlot.AlignedData, el);
    plot.current = p;
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(160, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
    };
  }, [label, shape, log]);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  useEffect(() => {
    plot.current?.redraw(false);
  }, [marker]);

  const shown = data[series.findIndex((s) => !s.raw) + 1] ?? [];
  const lastValue = [...(runs[0]?.rows ?? [])].reverse().find((r) => metric in r.metrics)?.metrics[metric];
  return (
    <div className="metric-chart panel" data-testid={`chart-${metric}`} data-points={runs[0]?.rows.length ?? 0} data-series={series.length}
      data-marker={marker ?? ''} data-y-scale={log ? 'log' : 'linear'}>
      <div className="metric-chart-head">
        <span>{label}</span>
        {onToggleLog ? (
          <label className="muted" title="Log-scale y axis (values ≤ 0 have no logarithm and are left out)">
            <input type="checkbox" checked={log} data-testid={`chart-log-${metric}`} onChange={onToggleLog} /> log
          </label>
        ) : null}
        {dropped > 0 ? <span className="muted" data-testid={`chart-log-dropped-${metric}`} title="Not drawn on the log scale">{dropped} ≤ 0 left out</span> : null}
        {/* Not defined for this run (entropy with nothing trained): 'n/a', not 0. */}
        <span className="mono muted" title={metric} data-testid={`chart-last-${metric}`}>
          {lastValue === undefined ? (shown.length ? 'n/a' : '–') : formatMetric(lastValue)}
        </span>
      </div>
      <div ref={box} className="metric-chart-plot" />
    </div>
  );
}
