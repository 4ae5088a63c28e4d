import { useEffect, useRef, useState } from 'react';
import type { KeyName, Rotation } from '../../../../core/api/types.js';
import { download, stampedName } from '../../download.js';
import { appStore, useApp } from '../../store/index.js';
import { startClip, type ClipRecorder } from './recorder.js';

const NAV: Array<{ key: KeyName; label: string; testId: string; title: string }> = [
  { key: 'BACK', label: '◀', testId: 'key-back', title: 'Back (Esc, Alt+B, right click)' },
  { key: 'HOME', label: '●', testId: 'key-home', title: 'Home (Alt+H, middle click)' },
  { key: 'APP_SWITCH', label: '■', testId: 'key-recents', title: 'Recents (Alt+S)' },
];

/** Zoom steps, as a scale of the device's pixels (Android Studio's Running Devices zooms by these). */
export const ZOOMS = [0.2, 0.25, 1 / 3, 0.5, 0.75, 1] as const;

/** The next zoom in a direction from the current one (from 'fit', the step nearest the fitted scale). */
export function nextZoom(zoom: 'fit' | number, fitted: number, dir: 1 | -1): number {
  const now = zoom === 'fit' ? fitted : zoom;
  const steps = dir > 0 ? ZOOMS.filter((z) => z > now + 1e-6) : [...ZOOMS].reverse().filter((z) => z < now - 1e-6);
  return steps[0] ?? (dir > 0 ? ZOOMS[ZOOMS.length - 1]! : ZOOMS[0]);
}

const send = (key: KeyName) => void appStore().getState().sendInput({ kind: 'key', key });

/**
 * The side toolbar, as an emulator's and Android Studio's Running Devices': system keys, inspect mode, zoom (in, out,
 * fit), rotate (a device that can: not SimDroid, which draws portrait only), a full-size screenshot saved as PNG, and a
 * recording of the mirrored screen saved as WebM.
 */
export function LiveToolbar({ device }: { device: { width: number; height: number } }) {
  const inspect = useApp((s) => s.inspectMode);
  const serial = useApp((s) => s.selectedSerial);
  const summary = useApp((s) => s.devices.find((d) => d.serial === s.selectedSerial) ?? null);
  const zoom = useApp((s) => s.liveZoom);
  const [rotation, setRotation] = useState<Rotation>(0);
  const fitted = (Math.max(360, Math.min(1000, window.innerHeight - 200))) / device.height;
  const st = appStore().getState();
  const rotate = (turn: 1 | -1) => {
    if (!serial) return;
    const next = (((rotation + turn) % 4) + 4) % 4 as Rotation;
    void st.attempt(`Rotate ${serial}`, () => appStore().getState().rotateDevice(serial, next)).then((ok) => ok && setRotation(next));
  };
  const screenshot = async () => {
    if (!serial) return;
    const shot = await st.attempt(`Screenshot of ${serial}`, () => st.screenshotDevice(serial));
    if (shot) download(stampedName(serial, 'png'), new Blob([shot as BlobPart], { type: 'image/png' }));
  };
  const rotateTitle = summary?.rotate ? 'Rotate the device' : `${serial ?? 'This device'} cannot be rotated: SimDroid draws portrait only`;
  return (
    <div className="live-toolbar" role="toolbar" aria-label="Device keys and view">
      {NAV.map((n) => (
        <button key={n.key} data-testid={n.testId} title={n.title} aria-label={n.title} onClick={() => send(n.key)}>
          {n.label}
        </button>
      ))}
      <span className="live-toolbar-sep" />
      <button
        data-testid="inspect-mode" aria-pressed={inspect} className={inspect ? 'active' : undefined}
        title="Inspect mode: a click on the screen selects the element under it instead of tapping"
        onClick={() => st.setInspectMode(!inspect)}
      >
        <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
          <circle cx="12" cy="12" r="7" />
          <path d="M12 2v5M12 17v5M2 12h5M17 12h5" />
        </svg>
      </button>
      <span className="live-toolbar-sep" />
      <button data-testid="zoom-in" title="Zoom in" aria-label="Zoom in" onClick={() => st.setLiveZoom(nextZoom(zoom, fitted, 1))}>+</button>
      <button data-testid="zoom-out" title="Zoom out" aria-label="Zoom out" onClick={() => st.setLiveZoom(nextZoom(zoom, fitted, -1))}>−</button>
      <button data-testid="zoom-fit" title={`Fit the window${zoom === 'fit' ? ' (now)' : ` (now ${Math.round(zoom * 100)}%)`}`} aria-label="Fit the window"
        aria-pressed={zoom === 'fit'} className={zoom === 'fit' ? 'active' : undefined} onClick={() => st.setLiveZoom('fit')}>⤢</button>
      <span className="live-toolbar-sep" />
      <button data-testid="rotate-left" title={rotateTitle} aria-label="Rotate left" disabled={!summary?.rotate} onClick={() => rotate(-1)}>⟲</button>
      <button data-testid="rotate-right" title={rotateTitle} aria-label="Rotate right" disabled={!summary?.rotate} onClick={() => rotate(1)}>⟳</button>
      <span className="live-toolbar-sep" />
      <button data-testid="live-screenshot" title="Save a full-size screenshot (PNG)" aria-label="Screenshot" disabled={!serial} onClick={() => void screenshot()}>
        <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
          <path d="M4 7h4l2-3h4l2 3h4v12H4z" /><circle cx="12" cy="13" r="3.5" />
        </svg>
      </button>
      <RecordButton serial={serial} />
    </div>
  );
}

/** Records the mirrored screen while on; a second press saves the clip (WebM). */
function RecordButton({ serial }: { serial: string | null }) {
  const rec = useRef<{ clip: ClipRecorder; off: () => void; started: number } | null>(null);
  const [since, setSince] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (since === null) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [since]);
  // Leaving the view ends a recording without saving a clip nobody asked to stop.
  useEffect(() => () => rec.current?.off(), []);
  const start = () => {
    const st = appStore().getState();
    const frame = st.frame;
    void st.attempt('Record the screen', async () => {
      const clip = startClip(frame?.width ?? 540, frame?.height ?? 1200, frame?.png ?? null);
      const off = appStore().subscribe((s, prev) => {
        if (s.frame && s.frame !== prev.frame) clip.frame(s.frame.png);
      });
      rec.current = { clip, off, started: Date.now() };
      setSince(Date.now());
    });
  };
  const stop = async () => {
    const r = rec.current;
    rec.current = null;
    setSince(null);
    if (!r) return;
    r.off();
    const blob = await r.clip.stop();
    download(stampedName(serial ?? 'screen', 'webm'), blob);
  };
  const secs = since === null ? 0 : Math.floor((now - since) / 1000);
  return (
    <button data-testid="live-record" aria-pressed={since !== null} className={since !== null ? 'active recording' : undefined} disabled={!serial && since === null}
      title={since !== null ? `Recording (${secs} s): press to stop and save the clip (WebM)` : 'Record the screen (WebM)'} aria-label="Record the screen"
      onClick={() => (since !== null ? void stop() : start())}>
      {since !== null ? <span className="mono small">{secs}s</span> : (
        <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden><circle cx="12" cy="12" r="7" fill="#c23934" /></svg>
      )}
    </button>
  );
}
