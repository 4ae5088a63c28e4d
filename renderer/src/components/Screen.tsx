import { useEffect, useMemo, useRef, type MouseEvent, type ReactNode } from 'react';
import type { Bounds } from '../../../core/api/types.js';
import { canPaintFrames, FrameCanvas } from './FrameCanvas.js';
import { Wireframe, type WireNode } from './Wireframe.js';

/**
 * A device screen (PNG bytes) at the device's aspect ratio, with overlays drawn in device pixels.
 * Every view that shows a screen uses it: the live mirror, the agent's proposal, the replay viewer.
 * Pointer positions are reported in device pixels, whatever size the image is shown at.
 */
export interface ScreenBox {
  bounds: Bounds;
  /** 'target': the action's element; 'hover': the inspector's node; 'candidate': an alternative. */
  kind: 'target' | 'hover' | 'candidate' | 'selected';
  label?: string;
}

export interface ScreenProps {
  png: Uint8Array | null;
  /** Device size in pixels (overlays and pointer positions use it). */
  device: { width: number; height: number };
  boxes?: ScreenBox[];
  /** A tap/swipe marker in device pixels. */
  marker?: { x: number; y: number; x2?: number; y2?: number } | null;
  /** Displayed height in CSS pixels (width follows the aspect ratio). */
  height?: number;
  onPointerDown?(p: { x: number; y: number }, e: MouseEvent): void;
  onPointerUp?(p: { x: number; y: number }, e: MouseEvent): void;
  onPointerMove?(p: { x: number; y: number } | null): void;
  children?: ReactNode;
  testId?: string;
  /** What to say when there is no image (default "No screen"). */
  emptyText?: string;
  /** A live mirror: frames follow each other fast, so they are painted on a canvas (FrameCanvas). */
  live?: boolean;
  /** Without an image: the accessibility tree's boxes and texts to draw instead (Wireframe), not an empty screen. */
  wireframe?: readonly WireNode[] | null;
}

/** An object URL for PNG bytes, revoked when the bytes change or the component goes. */
export function usePngUrl(png: Uint8Array | null): string | null {
  const url = useMemo(() => (png ? URL.createObjectURL(new Blob([png as BlobPart], { type: 'image/png' })) : null), [png]);
  useEffect(() => () => {
    if (url) URL.revokeObjectURL(url);
  }, [url]);
  return url;
}

export function Screen(props: ScreenProps) {
  const { device, height = 640 } = props;
  const width = Math.round((height * device.width) / device.height);
  const painted = props.live === true && canPaintFrames;
  const url = usePngUrl(painted ? null : props.png);
  const ref = useRef<HTMLDivElement>(null);
  const toDevice = (e: MouseEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return {
      x: Math.max(0, Math.min(device.width - 1, Math.round(((e.clientX - r.left) / r.width) * device.width))),
      y: Math.max(0, Math.min(device.height - 1, Math.round(((e.clientY - r.top) / r.height) * device.height))),
    };
  };
  const pct = (v: number, of: number) => `${(v / of) * 100}%`;
  const m = props.marker;
  return (
    <div
      ref={ref}
      className="screen"
      data-testid={props.testId}
      style={{ width, height, position: 'relative', background: '#111', borderRadius: 8, overflow: 'hidden', flex: 'none', userSelect: 'none' }}
      onMouseDown={props.onPointerDown && ((e) => props.onPointerDown!(toDevice(e), e))}
      onMouseUp={props.onPointerUp && ((e) => props.onPointerUp!(toDevice(e), e))}
      onMouseMove={props.onPointerMove && ((e) => props.onPointerMove!(toDevice(e)))}
      onMouseLeave={props.onPointerMove && (() => props.onPointerMove!(null))}
    >
      {painted && props.png ? <FrameCanvas png={props.png} />
        : url ? <img src={url} alt="device screen" draggable={false} style={{ width: '100%', height: '100%', display: 'block' }} />
          : props.wireframe?.length ? <><Wireframe nodes={props.wireframe} device={device} /><span className="wireframe-note">{props.emptyText ?? 'No screenshot'}: drawn from the accessibility tree</span></>
            : <div className="muted" style={{ padding: 12 }}>{props.emptyText ?? 'No screen'}</div>}
      {(props.boxes ?? []).map((b, i) => (
        <div
          key={i}
          className={`screen-box ${b.kind}`}
          title={b.label}
          style={{
            position: 'absolute', pointerEvents: 'none',
            left: pct(b.bounds.left, device.width), top: pct(b.bounds.top, device.height),
            width: pct(b.bounds.right - b.bounds.left, device.width), height: pct(b.bounds.bottom - b.bounds.top, device.height),
          }}
        >
          {b.label && b.kind !== 'hover' ? <span className="screen-box-label">{b.label}</span> : null}
        </div>
      ))}
      {m ? (
        <svg style={{ position: 'absolute', inset: 0, pointerEvents: 'none' }} viewBox={`0 0 ${device.width} ${device.height}`} preserveAspectRatio="none" width="100%" height="100%">
          {m.x2 !== undefined && m.y2 !== undefined ? <line x1={m.x} y1={m.y} x2={m.x2} y2={m.y2} stroke="#ff3b30" strokeWidth={12} strokeLinecap="round" /> : null}
          <circle cx={m.x} cy={m.y} r={36} fill="rgba(255,59,48,0.35)" stroke="#ff3b30" strokeWidth={8} />
        </svg>
      ) : null}
      {props.children}
    </div>
  );
}
