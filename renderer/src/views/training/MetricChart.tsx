import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { INTEGER_TICK_STEPS, iterationRange } from './health.js';
import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { download, stampedName } from '../../download.js';
import {
  chartColumns, chartCsv, formatMetric, formatX, logRange, logScaleColumns, yRange, type ChartColumns, type ChartRun, type ChartXAxis,
} from './chart-data.js';

const HEIGHT = 130;
/** How long a click waits for a second one (a double-click resets the zoom instead of opening an iteration). */
const DOUBLE_CLICK_MS = 300;
/** Charts with this key share their cursor, as W&B's panels do: hovering one shows the values at that x in all. */
export const CHART_SYNC = 'awb-metrics';

/** Draws a dashed vertical line at the marked x (a link back from a rollout in Trajectories). */
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
 * The raw values faint behind each smoothed line (TensorBoard's and W&B's smoothing), drawn here rather than as series
 * of their own so the legend has one entry per run.
 */
function rawPlugin(cols: () => ChartColumns, on: () => boolean): uPlot.Plugin {
  return {
    hooks: {
      drawSeries: (u, si) => {
        if (!on() || si === 0) return;
        const c = cols();
        const values = c.raw[si - 1];
        const color = c.series[si - 1]?.color;
        if (!values || !color) return;
        const { ctx } = u;
        ctx.save();
        ctx.beginPath();
        ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
        ctx.clip();
        ctx.strokeStyle = `${color}55`;
        ctx.lineWidth = 1 * devicePixelRatio;
        ctx.beginPath();
        let pen = false;
        values.forEach((v, i) => {
          if (v === null || (u.scales.y?.distr === 3 && v <= 0)) return;
          const x = u.valToPos(u.data[0]![i]!, 'x', true);
          const y = u.valToPos(v, 'y', true);
          if (pen) ctx.lineTo(x, y);
          else ctx.moveTo(x, y);
          pen = true;
        });
        ctx.stroke();
        ctx.restore();
      },
    },
  };
}

/**
 * After each draw, what uPlot drew goes on the plot's element as data attributes (the canvas cannot be read
 * back as text): the scales' ranges and the x ticks, which the end-to-end tests check.
 */
function drawnPlugin(xTicks: () => readonly number[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const el = u.root.parentElement;
        if (!el) return;
        el.dataset.yMin = String(u.scales.y?.min ?? '');
        el.dataset.yMax = String(u.scales.y?.max ?? '');
        el.dataset.xMin = String(u.scales.x?.min ?? '');
        el.dataset.xMax = String(u.scales.x?.max ?? '');
        el.dataset.xTicks = xTicks().join(',');
      },
    },
  };
}

/**
 * One metric drawn by uPlot (canvas) as researchers know charts from W&B and TensorBoard: the shown run and any
 * overlaid runs, one legend entry per run (its name, the value under the cursor, the raw value beside a smoothed one),
 * the EMA-smoothed line over the faint raw values, a cursor shared with the other charts, drag to zoom and
 * double-click to reset, the x axis by iteration, environment steps or time, a marked iteration, a linear or log-scale
 * y axis, export as CSV and PNG, and a click on a point that opens that iteration's rollouts (`onPick`).
 */
export function MetricChart({ metric, label, rows, runs: given, smoothing = 0, marker = null, log = false, onToggleLog, axis = 'iteration', onPick, sync = CHART_SYNC }: {
  metric: string; label: string;
  /** One run's rows (a chart of one job), or `runs`: the shown run first, then overlaid ones. */
  rows?: readonly IterationMetricsRow[]; runs?: readonly ChartRun[]; smoothing?: number; marker?: number | null;
  log?: boolean; onToggleLog?: () => void; axis?: ChartXAxis;
  /** A click on a point: the run and the iteration there. */
  onPick?: (runId: number, iteration: number) => void;
  /** The cursor-sharing group (null: its own). */
  sync?: string | null;
}) {
  const runs = useMemo(() => given ?? [{ runId: 0, label, rows: rows ?? [] }], [given, rows, label]);
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const markerRef = useRef(marker);
  markerRef.current = marker;
  const cols = useMemo(() => chartColumns(runs, metric, smoothing, axis), [runs, metric, smoothing, axis]);
  const colsRef = useRef(cols);
  colsRef.current = cols;
  const smoothRef = useRef(smoothing > 0);
  smoothRef.current = smoothing > 0;
  const pickRef = useRef(onPick);
  pickRef.current = onPick;
  const { data, dropped } = useMemo(() => (log ? logScaleColumns(cols.data) : { data: cols.data, dropped: 0 }), [cols, log]);
  const xTicks = useRef<readonly number[]>([]);
  // The x index under the cursor (null: off the chart), for the legend below.
  const [cursor, setCursor] = useState<number | null>(null);
  // The plot is rebuilt when its series change (a run overlaid), its axes or y scale, else only its data.
  const shape = cols.series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = box.current!;
    let down: { x: number; y: number } | null = null;
    const p = new uPlot({
      width: Math.max(160, el.clientWidth), height: HEIGHT,
      scales: {
        // Zoomed by dragging (setScale), reset by a double-click: the range then is the data's again.
        x: { time: false, range: (_u, min, max) => (axis === 'iteration' ? iterationRange(min, max) : min === max ? [min - 1, max + 1] : [min, max]) },
        // A flat series (all zeros early in training) gets a small band around its value; distr 3 is uPlot's log scale.
        y: log ? { distr: 3, log: 10, range: (_u, min, max) => logRange(min, max) } : { range: (_u, min, max) => yRange(min, max) },
      },
      legend: { show: false },
      cursor: {
        drag: { x: true, y: false, setScale: true },
        ...(sync ? { sync: { key: sync, setSeries: false } } : {}),
      },
      series: [
        {},
        ...cols.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, points: { show: true, size: 4 }, spanGaps: true })),
      ],
      axes: [
        {
          size: 28, font: '10px sans-serif', ...(axis === 'iteration' ? { incrs: INTEGER_TICK_STEPS } : {}),
          values: (_u, ticks) => ((xTicks.current = ticks), ticks.map((t) => (axis === 'iteration' && !Number.isInteger(t) ? '' : formatX(t, axis)))),
        },
        { size: 46, font: '10px sans-serif' },
      ],
      hooks: { setCursor: [(u) => setCursor(u.cursor.idx ?? null)] },
      plugins: [markerPlugin(() => markerRef.current), rawPlugin(() => colsRef.current, () => smoothRef.current), drawnPlugin(() => xTicks.current)],
    }, data as uPlot.AlignedData, el);
    plot.current = p;
    // A click (not a drag) on the plot opens the iteration of the shown run nearest to it.
    const over = p.over;
    // A double-click resets the zoom: its first click must not open anything, so a click waits to see if a second comes.
    let pending: ReturnType<typeof setTimeout> | null = null;
    const onDown = (e: MouseEvent) => (down = { x: e.clientX, y: e.clientY });
    const onUp = (e: MouseEvent) => {
      const start = down;
      down = null;
      if (pending) clearTimeout(pending);
      pending = null;
      if (e.detail > 1 || !start || Math.hypot(e.clientX - start.x, e.clientY - start.y) > 3 || !pickRef.current) return;
      pending = setTimeout(() => pick(e), DOUBLE_CLICK_MS);
    };
    const pick = (e: MouseEvent) => {
      pending = null;
      if (!pickRef.current) return;
      const x = p.posToVal(e.clientX - over.getBoundingClientRect().left, 'x');
      const c = colsRef.current;
      const xs = c.data[0]!;
      let best: { k: number; i: number; d: number } | null = null;
      c.iterations.forEach((its, k) => its.forEach((it, i) => {
        if (it === null) return;
        const d = Math.abs(xs[i]! - x) + k * 1e-9; // ties go to the shown run
        if (!best || d < best.d) best = { k, i, d };
      }));
      if (best) {
        const { k, i } = best;
        pickRef.current(c.series[k]!.runId, c.iterations[k]![i]!);
      }
    };
    over.addEventListener('mousedown', onDown);
    over.addEventListener('mouseup', onUp);
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(160, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      if (pending) clearTimeout(pending);
      resize.disconnect();
      over.removeEventListener('mousedown', onDown);
      over.removeEventListener('mouseup', onUp);
      p.destroy();
      plot.current = null;
    };
    // Not rebuilt on new data (the effect below sets it): a rebuild would lose the zoom at every iteration.
  }, [label, shape, log, axis, sync]);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  useEffect(() => {
    plot.current?.redraw(false);
  }, [marker, smoothing]);

  const exportCsv = () => download(stampedName(`${metric.replace(/\//g, '_')}`, 'csv'), new Blob([chartCsv(cols, axis, smoothing)], { type: 'text/csv' }));
  const exportPng = () => {
    const canvas = plot.current?.ctx.canvas;
    canvas?.toBlob((b) => b && download(stampedName(`${metric.replace(/\//g, '_')}`, 'png'), b), 'image/png');
  };
  const lastValue = [...(runs[0]?.rows ?? [])].reverse().find((r) => metric in r.metrics)?.metrics[metric];
  const shown = cols.raw[0] ?? [];
  const xs = cols.data[0] ?? [];
  return (
    <div className="metric-chart panel" data-testid={`chart-${metric}`} data-points={runs[0]?.rows.length ?? 0} data-series={cols.series.length}
      data-marker={marker ?? ''} data-y-scale={log ? 'log' : 'linear'} data-x-axis={axis}>
      <div className="metric-chart-head">
        <span className="metric-chart-title" title={`${label} (${metric})`}>{label}</span>
        {onToggleLog ? (
          <label className="muted" title="Log-scale y axis (values ≤ 0 have no logarithm and are left out)">
            <input type="checkbox" checked={log} data-testid={`chart-log-${metric}`} onChange={onToggleLog} /> log
          </label>
        ) : null}
        {dropped > 0 ? <span className="muted" data-testid={`chart-log-dropped-${metric}`} title="Not drawn on the log scale">{dropped} ≤ 0 left out</span> : null}
        <button type="button" className="link small" data-testid={`chart-csv-${metric}`} title="Save the chart's values as CSV" onClick={exportCsv}>CSV</button>
        <button type="button" className="link small" data-testid={`chart-png-${metric}`} title="Save the chart as PNG" onClick={exportPng}>PNG</button>
        {/* Not defined for this run (entropy with nothing trained): 'n/a', not 0. */}
        <span className="mono muted" title={metric} data-testid={`chart-last-${metric}`}>
          {lastValue === undefined ? (shown.length ? 'n/a' : '–') : formatMetric(lastValue)}
        </span>
      </div>
      <div ref={box} className="metric-chart-plot" title="Drag to zoom, double-click to reset; click a point to open that iteration's rollouts" />
      <div className="metric-chart-legend" data-testid={`chart-legend-${metric}`} data-x={cursor !== null ? String(xs[cursor] ?? '') : ''}>
        <span className="muted mono">{cursor !== null && xs[cursor] !== undefined ? `${axis === 'iteration' ? 'it.' : ''} ${formatX(xs[cursor]!, axis)}` : ''}</span>
        {cols.series.map((s, k) => {
          const v = cursor !== null ? cols.data[k + 1]![cursor] ?? null : null;
          const raw = cursor !== null ? cols.raw[k]![cursor] ?? null : null;
          return (
            <span key={s.runId} className="metric-chart-entry" data-run={s.runId} data-value={formatMetric(v)} data-raw={formatMetric(raw)} title={s.label}>
              <span className="metric-chart-swatch" style={{ background: s.color }} aria-hidden /><span className="metric-chart-run">{s.label}</span>{' '}
              <span className="mono">{formatMetric(v)}</span>
              {smoothing > 0 && cursor !== null ? <span className="mono muted"> ({formatMetric(raw)})</span> : null}
            </span>
          );
        })}
        {cols.skipped.length ? <span className="muted" title="These runs do not record what this axis counts">{cols.skipped.map((id) => `run ${id}`).join(', ')}: not on this axis</span> : null}
      </div>
    </div>
  );
}
