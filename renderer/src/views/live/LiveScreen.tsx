import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { InputEvent } from '../../../../core/api/types.js';
import { Screen, type ScreenBox } from '../../components/Screen.js';
import { appStore, useApp } from '../../store/index.js';
import { beyondSlop, classifyGesture, keyToInput, type PointerSample } from './gestures.js';
import { hitTestTree, shortClass } from './tree-model.js';
import { LiveToolbar } from './LiveToolbar.js';

/** How far (CSS pixels) the pointer may wander before a press becomes a drag. */
const SLOP_CSS_PX = 6;

type Marker = { x: number; y: number; x2?: number; y2?: number };

const send = (e: InputEvent) => void appStore().getState().sendInput(e);

/**
 * The mirrored screen, controlled like scrcpy: left click taps, holding still long-presses, a drag is streamed to the
 * device as it moves (down, moves at the rate the device takes them, up; a swipe when it ends on a device that takes
 * whole gestures only), the wheel scrolls, right click is BACK and middle click HOME; with the screen focused, typing
 * types (Enter, Backspace, Escape = ENTER, DEL, BACK; Alt+B/H/S = Back/Home/Recents), and text with no field focused
 * is not sent but said.
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
  // A device that takes a streamed touch gets a drag as it happens (down, moves, up), as scrcpy sends it.
  const streams = useApp((s) => s.devices.find((x) => x.serial === s.selectedSerial)?.touch ?? false);
  const zoom = useApp((s) => s.liveZoom);
  const [noField, setNoField] = useState(false);
  const [marker, setMarker] = useState<Marker | null>(null);
  const press = useRef<{ start: PointerSample; moved: boolean; streaming: boolean; last: { x: number; y: number } } | null>(null);
  const pointer = useRef<{ x: number; y: number } | null>(null);
  const wrap = useRef<HTMLDivElement>(null);

  // Device pixels: the device's screen size, else the frame's (a half-scale frame is half the device).
  const device = size
    ? { width: Number(size.split('x')[0]), height: Number(size.split('x')[1]) }
    : frame ? { width: frame.width, height: frame.height } : { width: 1080, height: 2400 };
  // Drawn at the window's height ('fit'), or at a scale of the device's pixels.
  const shownHeight = zoom === 'fit' ? height : Math.round(device.height * zoom);
  const slop = (SLOP_CSS_PX * device.height) / shownHeight;

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
    if (pr.streaming) {
      void appStore().getState().endTouch(p);
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

  /** Text typed with no field focused on the device goes nowhere: say so instead of sending it. */
  const typeText = (input: InputEvent) => {
    if (input.kind !== 'text') {
      setNoField(false);
      send(input);
      return;
    }
    void appStore().getState().typeText(input.text).then((r) => setNoField(r === 'no-field'));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const input = keyToInput(e);
    if (!input) return;
    e.preventDefault();
    typeText(input);
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
          data-keys="device"
          aria-label="Device screen: click to tap, drag to swipe, type to send keys"
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            const text = e.clipboardData.getData('text');
            if (text) {
              e.preventDefault();
              typeText({ kind: 'text', text });
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
            height={shownHeight}
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
              press.current = { start: { ...p, t: performance.now() }, moved: false, streaming: false, last: p };
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
              if (!pr.moved && beyondSlop(pr.start, p, slop)) {
                pr.moved = true;
                // Past the slop it is a drag: on a streaming device the finger goes down where it was pressed.
                if (streams && !inspect) {
                  pr.streaming = true;
                  appStore().getState().beginTouch(pr.start);
                }
              }
              if (pr.streaming) appStore().getState().moveTouch(p);
              if (pr.moved && !inspect) setMarker({ x: pr.start.x, y: pr.start.y, x2: p.x, y2: p.y });
            }}
            onPointerUp={(p, e) => {
              if (e.button === 0) finish(p);
            }}
          />
        </div>
        <LiveToolbar device={device} />
      </div>
      {noField ? (
        <div className="live-notice" role="alert" data-testid="live-no-focus">
          No text field is focused on the device: tap one first. Nothing was typed.
        </div>
      ) : null}
      <TextBox onText={(text) => typeText({ kind: 'text', text })} />
    </div>
  );
}

function TextBox({ onText }: { onText(text: string): void }) {
  const [text, setText] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text) return;
    onText(text);
    setText('');
  };
  return (
    <form className="row live-typing" onSubmit={submit}>
      <input
        data-testid="type-text" value={text} onChange={(e) => setText(e.target.value)}
        placeholder="Text to type into the focused field" aria-label="Text to type on the device"
      />
      <button type="submit" data-testid="send-text" disabled={!text}>Send text</button>
    </form>
  );
}
