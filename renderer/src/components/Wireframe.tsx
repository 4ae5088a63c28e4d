import type { Bounds } from '../../../core/api/types.js';

/** One box of a wireframe: a node's bounds, and its text or description if it has one. */
export interface WireNode {
  bounds: Bounds;
  text: string;
  clickable: boolean;
}

/** Text size in device pixels: readable at the replay's 540 px for a 2400 px tall screen. */
const FONT = 30;

/**
 * A screen drawn from its accessibility tree, where no screenshot was kept (a GRPO run records none by default):
 * every node's bounds as an outline (clickable ones in the accent colour) and its text, cut to the box's width, so a
 * rollout's steps can be followed without the pixels.
 */
export function Wireframe({ nodes, device }: { nodes: readonly WireNode[]; device: { width: number; height: number } }) {
  return (
    <svg className="wireframe" viewBox={`0 0 ${device.width} ${device.height}`} preserveAspectRatio="none" width="100%" height="100%"
      data-testid="wireframe" data-nodes={nodes.length} style={{ position: 'absolute', inset: 0, background: '#fafbfc' }}>
      {nodes.map((n, i) => {
        const w = n.bounds.right - n.bounds.left;
        const h = n.bounds.bottom - n.bounds.top;
        const fits = Math.max(0, Math.floor((w - 12) / (FONT * 0.56)));
        const label = n.text.length > fits ? `${n.text.slice(0, Math.max(0, fits - 1))}…` : n.text;
        return (
          <g key={i}>
            <rect x={n.bounds.left + 1} y={n.bounds.top + 1} width={Math.max(0, w - 2)} height={Math.max(0, h - 2)} fill="none"
              stroke={n.clickable ? '#2f6fed' : '#aab2bf'} strokeWidth={n.clickable ? 3 : 2} />
            {label && h >= FONT * 0.9 && fits > 1 ? (
              <text x={n.bounds.left + 6} y={n.bounds.top + Math.min(h, FONT * 1.6) / 2 + FONT * 0.35} fontSize={FONT} fill="#1d2330">{label}</text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
