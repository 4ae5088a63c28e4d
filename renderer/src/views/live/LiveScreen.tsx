import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { InputEvent, KeyName } from '../../../../core/api/types.js';
import { Screen, type ScreenBox } from '../../components/Screen.js';
import { appStore, useApp } from '../../store/index.js';
import { beyondSlop, classifyGesture, keyToInput, type PointerSample } from './gestures.js';
import { hitTestTree, shortClass } from './tree-model.js';

/** How far (CSS pixels) the pointer may wander before a press becomes a drag. */
const SLOP_CSS_PX = 6;

type Marker = { x: number; y: number; x2?: number; y2?: number };

const send = (e: InputEvent) => void appStore().getState().sendInput(e);

/**
 * The mirrored screen, controlled like scrcpy: left click taps, holding still long-presses, a drag
 * swipes, the wheel scrolls, right click is BACK and middle click HOME; with the screen focused,
 * typing types (Enter, Backspace, Escape = ENTER, DEL, BACK; Alt+B/H/S = Back/Home/Recents).
 */
export function LiveScreen({ height }: { height: number }) {
  const frame = useApp((s) => s.frame);
  const size = useApp((s) => {
    const d = s.devices.find((x) => x.serial === s.selectedSerial)?.screen ?? s.screenState?.screen;
    return d ? `${d.width}x${d.height}` : null;
  });
  const nodes = useApp((s) => s.liveNodes);
  const hovered = useApp((s) => s.hoveredOrdinal);
  const selected = useApp((s) => s.selectedOrdinal);
  const inspect = useApp((s) => s.inspectMode);
  const [marker, setMarker] = useState<Marker | null>(null);
  const press = useRef<{ start: PointerSample; moved: boolean; last: { x: number; y: number } } | null>(null);
  const pointer = useRef<{ x: number; y: number } | null>(null);
  const wrap = useRef<HTMLDivElement>(null);

  // Device pixels: the device's screen size, else the frame's (a half-scale frame is half the device).
  const device = size
    ? { width: Number(size.split('x')[0]), height: Number(size.split('x')[1]) }
    : frame ? { width: frame.width, height: frame.height } : { width: 1080, height: 2400 };
  const slop = (SLOP_CSS_PX * device.height) / height;

  const nodeAt = (p: { x: number; y: number }) => hitTestTree(nodes, p.x, p.y)?.ordinal ?? null;

  const finish = (p: { x: number; y: number }) => {
    const pr = press.current;
    press.current = null;
    setMarker(null);
    if (!pr) return;
    if (inspect && !pr.moved) {
      appStore().getState().selectNode(nodeAt(pr.start));
      return;
    }
    send(classifyGesture(pr.start, { ...p, t: performance.now() }, pr.moved));
  };

  // The wheel scrolls the device's content (a short swipe), not the page: a non-passive listener.
  const scrollRef = useRef({ delta: 0, timer: null as ReturnType<typeof setTimeout> | null });
  const deviceRef = useRef(device);
  deviceRef.current = device;
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const acc = scrollRef.current;
      acc.delta += e.deltaMode === 1 ? e.deltaY * 40 : e.deltaY;
      if (acc.timer) return;
      acc.timer = setTimeout(() => {
        const d = deviceRef.current;
        const at = pointer.current ?? { x: d.width / 2, y: d.height / 2 };
        const dist = Math.sign(acc.delta) * Math.min(d.height * 0.4, Math.max(d.height * 0.08, Math.abs(acc.delta) * 2));
        acc.delta = 0;
        acc.timer = null;
        const y2 = Math.max(0, Math.min(d.height - 1, Math.round(at.y - dist)));
        if (Math.abs(y2 - at.y) > 10) send({ kind: 'swipe', x1: Math.round(at.x), y1: Math.round(at.y), x2: Math.round(at.x), y2, durationMs: 150 });
      }, 80);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const onKeyDown = (e: KeyboardEvent) => {
    const input = keyToInput(e);
    if (!input) return;
    e.preventDefault();
    send(input);
  };

  const boxes: ScreenBox[] = [];
  const sel = selected !== null ? nodes[selected] : undefined;
  const hov = hovered !== null ? nodes[hovered] : undefined;
  if (sel) boxes.push({ bounds: sel.node.bounds, kind: 'selected', label: `${selected} ${shortClass(sel.node.className)}` });
  if (hov && hov !== sel) boxes.push({ bounds: hov.node.bounds, kind: 'hover', label: shortClass(hov.node.className) });

  return (
    <div className="live-screen-column">
      <div className="live-screen-row">
        <div
          ref={wrap}
          className={inspect ? 'live-screen-wrap inspecting' : 'live-screen-wrap'}
          tabIndex={0}
          aria-label="Device screen: click to tap, drag to swipe, type to send keys"
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            const text = e.clipboardData.getData('text');
            if (text) {
              e.preventDefault();
              send({ kind: 'text', text });
            }
          }}
          onContextMenu={(e) => {
            e.preventDefault();
            send({ kind: 'key', key: 'BACK' });
          }}
        >
          <Screen
            testId="live-screen"
            live
            png={frame?.png ?? null}
            device={device}
            height={height}
            boxes={boxes}
            marker={marker}
            onPointerDown={(p, e) => {
              wrap.current?.focus();
              if (e.button === 1) {
                e.preventDefault();
                send({ kind: 'key', key: 'HOME' });
                return;
              }
              if (e.button !== 0) return;
              press.current = { start: { ...p, t: performance.now() }, moved: false, last: p };
              if (!inspect) setMarker({ x: p.x, y: p.y });
            }}
            onPointerMove={(p) => {
              pointer.current = p;
              appStore().getState().hoverNode(p ? nodeAt(p) : null);
              const pr = press.current;
              if (!pr) return;
              // Leaving the screen ends the gesture where the pointer left it.
              if (!p) return finish(pr.last);
              pr.last = p;
              if (!pr.moved && beyondSlop(pr.start, p, slop)) pr.moved = true;
              if (pr.moved && !inspect) setMarker({ x: pr.start.x, y: pr.start.y, x2: p.x, y2: p.y });
            }}
            onPointerUp={(p, e) => {
              if (e.button === 0) finish(p);
            }}
          />
        </div>
        <NavBar />
      </div>
      <TextBox />
    </div>
  );
}

const NAV: Array<{ key: KeyName; label: string; testId: string; title: string }> = [
  { key: 'BACK', label: '◀', testId: 'key-back', title: 'Back (Esc, Alt+B, right click)' },
  { key: 'HOME', label: '●', testId: 'key-home', title: 'Home (Alt+H, middle click)' },
  { key: 'APP_SWITCH', label: '■', testId: 'key-recents', title: 'Recents (Alt+S)' },
];

/** The emulator-style side toolbar: system keys and the inspect-mode toggle. */
function NavBar() {
  const inspect = useApp((s) => s.inspectMode);
  return (
    <div className="live-toolbar" role="toolbar" aria-label="Device keys">
      {NAV.map((n) => (
        <button key={n.key} data-testid={n.testId} title={n.title} aria-label={n.title} onClick={() => send({ kind: 'key', key: n.key })}>
          {n.label}
        </button>
      ))}
      <span className="live-toolbar-sep" />
      <button
        data-testid="inspect-mode" aria-pressed={inspect} className={inspect ? 'active' : undefined}
        title="Inspect mode: a click on the screen selects the element under it instead of tapping"
        onClick={() => appStore().getState().setInspectMode(!inspect)}
      >
        <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
          <circle cx="12" cy="12" r="7" />
          <path d="M12 2v5M12 17v5M2 12h5M17 12h5" />
        </svg>
      </button>
    </div>
  );
}

function TextBox() {
  const [text, setText] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text) return;
    if (await appStore().getState().sendInput({ kind: 'text', text })) setText('');
  };
  return (
    <form className="row live-typing" onSubmit={(e) => void submit(e)}>
      <input
        data-testid="type-text" value={text} onChange={(e) => setText(e.target.value)}
        placeholder="Text to type into the focused field" aria-label="Text to type on the device"
      />
      <button type="submit" data-testid="send-text" disabled={!text}>Send text</button>
    </form>
  );
}
