import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { barColumns, formatPoints, type BarRow } from './bars.js';

/** The bars' colours (the e2e test looks for the after colour on the canvas). */
export const BEFORE_COLOUR = '#a3abb8';
export const AFTER_COLOUR = '#2f6fed';
const ROW = 30;
const LABEL_WIDTH = 300;

/**
 * Before vs after as grouped horizontal bars, drawn by uPlot's bars path builder: one row per group
 * (overall, then each template, labelled with its delta in points), the before bar above the
 * after bar, success rate 0–100% along the bottom.
 */
export function BeforeAfterBars({ rows }: { rows: readonly BarRow[] }) {
  const box = useRef<HTMLDivElement>(null);
  const data = useMemo(() => barColumns(rows), [rows]);
  const labels = useMemo(() => rows.map((r) => `${r.label}  ${formatPoints(r.deltaPoints)}`), [rows]);
  const height = rows.length * ROW + 36;

  useEffect(() => {
    const el = box.current!;
    const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.4, 12], align });
    const p = new uPlot({
      width: Math.max(320, el.clientWidth), height,
      legend: { show: false },
      cursor: { show: false },
      // x is the group index, drawn top to bottom (ori 1, dir -1); y is the success rate.
      scales: { x: { time: false, ori: 1, dir: -1, range: [-0.5, rows.length - 0.5] }, y: { ori: 0, range: [0, 1] } },
      axes: [
        {
          scale: 'x', side: 3, size: LABEL_WIDTH, font: '11px sans-serif', gap: 6, grid: { show: false }, ticks: { show: false },
          splits: () => rows.map((_, i) => i), values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
        },
        { scale: 'y', side: 2, size: 28, font: '10px sans-serif', splits: () => [0, 0.25, 0.5, 0.75, 1], values: (_u, splits) => splits.map((v) => `${Math.round(v * 100)}%`) },
      ],
      series: [
        {},
        { label: 'before', fill: BEFORE_COLOUR, stroke: BEFORE_COLOUR, width: 0, paths: bars(-1), points: { show: false } },
        { label: 'after', fill: AFTER_COLOUR, stroke: AFTER_COLOUR, width: 0, paths: bars(1), points: { show: false } },
      ],
    }, data, el);
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(320, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
    };
  }, [data, labels, rows.length, height]);

  return (
    <div className="adapt-bars" data-testid="adapt-bars" data-rows={rows.length} data-after={rows[0]?.after ?? ''}>
      <div className="adapt-legend">
        <span><i style={{ background: BEFORE_COLOUR }} /> before (base)</span>
        <span><i style={{ background: AFTER_COLOUR }} /> after (base + adapter)</span>
      </div>
      <div ref={box} className="adapt-bars-plot" />
    </div>
  );
}
