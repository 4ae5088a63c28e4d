import type { SimDroid } from '../simdroid.js';

/** The emulator tracks up to 10 fingers at once. */
export const MAX_FINGERS = 10;
/** A finger not updated for this long is lifted, as the emulator expires slots (EVENT_EXPIRATION_UNSPECIFIED). */
export const FINGER_EXPIRY_MS = 120_000;
/** The mouse's slot; touch identifiers are non-negative. */
const MOUSE_ID = -1;

export class TouchInputError extends Error {
  override name = 'TouchInputError';
  constructor(readonly field: string, readonly value: unknown, expected: string) {
    super(`touch ${field} must be ${expected}, got ${JSON.stringify(value)}`);
  }
}

export interface TouchPoint {
  x: number;
  y: number;
  identifier: number;
  pressure: number;
  /** NEVER_EXPIRE: the slot stays until its pressure-0 event. */
  neverExpire?: boolean;
}

interface Finger {
  x0: number;
  y0: number;
  x: number;
  y: number;
  downAt: number;
  seenAt: number;
  neverExpire: boolean;
}

/**
 * Turns the emulator's touch stream (per identifier: pressure > 0 down or moving, pressure 0 up)
 * into SimDroid's gestures, as a finger would: lifting a finger performs the gesture from where it
 * went down to where it came up, lasting as long as it was held — a tap, a long press when held
 * 500 ms or more, a swipe or scroll when it moved past touch slop (SimDroid's dispatcher decides).
 */
export class FingerTracker {
  private readonly fingers = new Map<number, Finger>();

  constructor(private readonly device: SimDroid, private readonly now: () => number = () => performance.now()) {}

  /** Fingers currently down. */
  get down(): number {
    return this.fingers.size;
  }

  /** Validates all points first, so a bad event changes nothing. */
  apply(points: readonly TouchPoint[]): void {
    for (const p of points) {
      if (!Number.isInteger(p.identifier) || p.identifier < 0) throw new TouchInputError('identifier', p.identifier, 'a non-negative integer');
      if (!Number.isInteger(p.pressure) || p.pressure < 0) throw new TouchInputError('pressure', p.pressure, 'a non-negative integer');
    }
    this.track(points);
  }

  /** The mouse: its primary button held is one more finger (the emulator's sendMouse on a touch screen). */
  mouse(x: number, y: number, pressed: boolean): void {
    this.track([{ x, y, identifier: MOUSE_ID, pressure: pressed ? 1 : 0 }]);
  }

  private track(points: readonly TouchPoint[]): void {
    const { width, height } = this.device.screen;
    const t = this.now();
    this.expire(t);
    const newIds = new Set(points.filter((p) => p.pressure > 0 && !this.fingers.has(p.identifier)).map((p) => p.identifier));
    if (this.fingers.size + newIds.size > MAX_FINGERS) {
      throw new TouchInputError('identifier', [...newIds][0], `one of at most ${MAX_FINGERS} fingers down at once (lift one with pressure 0 first)`);
    }
    for (const p of points) {
      // A finger sliding off the glass stays on its edge, as the touch panel reports it.
      const x = Math.min(width - 1, Math.max(0, p.x));
      const y = Math.min(height - 1, Math.max(0, p.y));
      const f = this.fingers.get(p.identifier);
      if (p.pressure > 0) {
        if (f) Object.assign(f, { x, y, seenAt: t });
        else this.fingers.set(p.identifier, { x0: x, y0: y, x, y, downAt: t, seenAt: t, neverExpire: p.neverExpire ?? false });
      } else if (f) {
        // Android ends the pointer where it last moved; an up event's own position is not used.
        this.lift(p.identifier, f, f.x, f.y, t);
      }
      // Pressure 0 for a finger that is not down is a hover: nothing happens.
    }
  }

  /** Lifts every finger (a client went away mid-gesture). */
  releaseAll(): void {
    const t = this.now();
    for (const [id, f] of this.fingers) this.lift(id, f, f.x, f.y, t);
  }

  private expire(t: number): void {
    for (const [id, f] of this.fingers) if (!f.neverExpire && t - f.seenAt >= FINGER_EXPIRY_MS) this.lift(id, f, f.x, f.y, f.seenAt);
  }

  private lift(id: number, f: Finger, x: number, y: number, t: number): void {
    this.fingers.delete(id);
    this.device.inputSync({ kind: 'swipe', x1: f.x0, y1: f.y0, x2: x, y2: y, durationMs: Math.max(0, Math.round(t - f.downAt)) });
  }
}
