import type { FrameWindow } from './frame.js';

/** A move shorter than this (dp) is a tap, as Android's touch slop. */
export const TOUCH_SLOP_DP = 8;

/** A scrolling list a drag can move: its window, its scroll key, its offset when the drag began, and the most. */
export interface DragScroller {
  win: FrameWindow;
  key: string;
  offset0: number;
  max: number;
}

/**
 * A streamed touch (MotionEvent DOWN … MOVE … UP), in px. Once past touch slop, a vertical drag that starts over a
 * scrolling list scrolls it with the finger, as Android's ScrollView does (the content follows while dragged, not only
 * when lifted); anything else is, when the finger lifts, the gesture from down to up (tap, long press, swipe).
 */
export class TouchStream {
  /** The finger down, and the list its moves scroll: undefined until the drag leaves touch slop and its direction is known, null when it scrolls nothing. */
  private finger: { x0: number; y0: number; at: number; moved: boolean; scroll?: DragScroller | null; path: number[] } | null = null;

  constructor(
    private readonly scale: () => number,
    /** The scrolling list under a point (dp), if any. */
    private readonly scrollerAt: (x: number, y: number) => DragScroller | null,
    /**
     * The gesture a lifted finger made that scrolled nothing: from (x1, y1) to (x2, y2) px, held so long, through
     * the points it moved by (px, x y x y …, from down to up; a drawing canvas draws them).
     */
    private readonly gesture: (x1: number, y1: number, x2: number, y2: number, durationMs: number, path: number[]) => void,
  ) {}

  /** `at` is when, in ms. */
  down(xPx: number, yPx: number, at: number): void {
    this.finger = { x0: xPx, y0: yPx, at, moved: false, path: [xPx, yPx] };
  }

  move(xPx: number, yPx: number): void {
    const f = this.finger;
    if (!f) return;
    f.path.push(xPx, yPx);
    const scale = this.scale();
    const [dx, dy] = [(xPx - f.x0) / scale, (yPx - f.y0) / scale];
    if (!f.moved && Math.hypot(dx, dy) < TOUCH_SLOP_DP) return;
    f.moved = true;
    if (f.scroll === undefined) f.scroll = Math.abs(dy) >= Math.abs(dx) ? this.scrollerAt(f.x0 / scale, f.y0 / scale) : null;
    const s = f.scroll;
    if (s) s.win.view.scroll[s.key] = Math.min(s.max, Math.max(0, s.offset0 - dy));
  }

  /** A drag that scrolled a list is done; anything else is the gesture from down to here. */
  up(xPx: number, yPx: number, at: number): void {
    const f = this.finger;
    this.finger = null;
    if (!f || f.scroll) return;
    this.gesture(f.x0, f.y0, xPx, yPx, Math.max(0, at - f.at), [...f.path, xPx, yPx]);
  }
}
