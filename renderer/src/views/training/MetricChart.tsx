import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { formatMetric, seriesOf, yRange } from './chart-data.js';

const HEIGHT = 130;

/** One metric of a run against the iteration, drawn by uPlot (canvas); redrawn as rows arrive. */
export function MetricChart({ metric, label, rows }: { metric: string; label: string; rows: readonly IterationMetricsRow[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data = useMemo(() => seriesOf(rows, metric), [rows, metric]);

  useEffect(() => {
    const el = box.current!;
    const p = new uPlot({
      width: Math.max(160, el.clientWidth), height: HEIGHT,
      // A flat series (all zeros early in training) gets a small band around its value, not uPlot's 0–100.
      scales: { x: { time: false }, y: { range: (_u, min, max) => yRange(min, max) } },
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      series: [{ label: 'iteration' }, { label, stroke: '#2f6fed', width: 1.5, points: { size: 4 } }],
      axes: [{ size: 28, font: '10px sans-serif' }, { size: 46, font: '10px sans-serif' }],
    }, [[], []], el);
    plot.current = p;
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(160, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
    };
  }, [label]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  const last = data[1].at(-1);
  return (
    <div className="metric-chart panel" data-testid={`chart-${metric}`} data-points={data[0].length}>
      <div className="metric-chart-head">
        <span>{label}</span>
        <span className="mono muted" title={metric}>{formatMetric(last)}</span>
      </div>
      <div ref={box} className="metric-chart-plot" />
    </div>
  );
}
