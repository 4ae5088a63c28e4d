import { useState } from 'react';
import { Screen, type ScreenBox } from '../../components/Screen.js';
import { useApp } from '../../store/index.js';
import { awaitingAgent } from '../../commands/session-run.js';
import { gestureOf, type Gesture } from './geometry.js';
import { hitTest, nodeLabel, type FlatNode } from './hit-test.js';
import { percent } from './format.js';

const DEFAULT_DEVICE = { width: 1080, height: 2400 };

/** An arrow along a finger path (swipe, scroll), drawn in device pixels over the screen. */
function PathArrow({ g, device, color }: { g: Extract<Gesture, { kind: 'path' }>; device: { width: number; height: number }; color: string }) {
  const angle = Math.atan2(g.y2 - g.y1, g.x2 - g.x1);
  const head = 70;
  const p = (a: number) => `${g.x2 - head * Math.cos(angle + a)},${g.y2 - head * Math.sin(angle + a)}`;
  return (
    <svg className="agent-arrow" viewBox={`0 0 ${device.width} ${device.height}`} preserveAspectRatio="none" width="100%" height="100%">
      <circle cx={g.x1} cy={g.y1} r={30} fill="rgba(255,59,48,0.3)" stroke={color} strokeWidth={8} />
      <line x1={g.x1} y1={g.y1} x2={g.x2} y2={g.y2} stroke={color} strokeWidth={14} strokeLinecap="round" />
      <polygon points={`${g.x2},${g.y2} ${p(0.45)} ${p(-0.45)}`} fill={color} />
    </svg>
  );
}

/**
 * The session's device: mirrored live while the session runs; while it holds, the screen the
 * proposal was made on, with the proposed action (red), the candidates (dashed blue) and a pending
 * override (blue). While the session holds, hovering shows the element a click would pick, and
 * clicking overrides the step with it (Shift+click: long press); while a person has an outside
 * agent's session (taken over), a click is carried out at once (override, then Step).
 */
export function AgentScreen() {
  const session = useApp((s) => s.session);
  const screen = useApp((s) => s.sessionScreen);
  const frame = useApp((s) => s.sessionFrame);
  const tree = useApp((s) => s.sessionTree);
  const known = useApp((s) => s.agentDevices.find((d) => d.serial === s.session?.serial)?.screen ?? null);
  const overrideAt = useApp((s) => s.overrideAt);
  const actAt = useApp((s) => s.actAsPersonAt);
  const handedBack = useApp(awaitingAgent);
  const [hovered, setHover] = useState<FlatNode | null>(null);

  const device = screen?.device ?? (known ? { width: known.width, height: known.height } : DEFAULT_DEVICE);
  const proposal = session?.proposal ?? null;
  // Handed back, the held placeholder is not the person's to override: the agent's next action replaces it.
  const paused = session?.state === 'paused' && !handedBack;
  const person = paused && !!session?.agent?.takenOver;
  const flat = tree && proposal && tree.forIndex === proposal.index ? tree.flat : null;
  const stale = !!proposal && screen?.forIndex !== proposal.index;
  // The held screen (or the end's) when it has come; else the device live.
  const still = screen && ((paused && !stale) || (session?.state === 'finished' && screen.forIndex === null));
  const liveFrame = still ? null : frame;
  const live = liveFrame !== null;
  // A node from an earlier screen's tree is not what a click would pick now.
  const hover = hovered && flat?.[hovered.ordinal] === hovered ? hovered : null;

  const boxes: ScreenBox[] = [];
  proposal?.candidates.forEach((c, i) => {
    if (c.target) boxes.push({ bounds: c.target.bounds, kind: 'candidate', label: `#${i + 1} ${percent(c.probability)}` });
  });
  if (proposal?.target) boxes.push({ bounds: proposal.target.bounds, kind: 'target', label: proposal.description ?? proposal.target.label });
  const pending = session?.pendingOverride ?? null;
  if (pending?.target) boxes.push({ bounds: pending.target.bounds, kind: 'selected', label: `Override: ${pending.description ?? pending.target.label}` });
  if (paused && hover) boxes.push({ bounds: hover.node.bounds, kind: 'hover', label: `#${hover.ordinal} ${nodeLabel(hover.node)}` });

  const shown = pending ?? proposal;
  const gesture = shown ? gestureOf(shown.action, shown.target?.bounds ?? null, device, flat) : null;
  const color = pending ? '#2f6fed' : '#ff3b30';
  const click = person ? actAt : overrideAt;

  return (
    <div className="agent-screen-wrap">
      <Screen
        testId="agent-screen"
        png={liveFrame?.png ?? screen?.png ?? null}
        live={live}
        device={device}
        height={600}
        boxes={boxes}
        marker={gesture?.kind === 'point' ? { x: gesture.x, y: gesture.y } : null}
        onPointerMove={paused ? (p) => setHover(p && flat ? hitTest(flat, p) : null) : undefined}
        onPointerDown={paused ? (p, e) => void click(p, e.shiftKey ? 'long_press' : 'click') : undefined}
      >
        {gesture?.kind === 'path' ? <PathArrow g={gesture} device={device} color={color} /> : null}
        {session?.state === 'running' ? <div className="agent-screen-note">{live ? 'Live' : 'Running…'}</div> : null}
        {stale && paused ? <div className="agent-screen-note">Updating…</div> : null}
      </Screen>
      <div className="muted agent-screen-hint">
        {person
          ? 'Click an element to do it now, in the agent\'s place (Shift+click: long press).'
          : paused ? 'Click an element to override this step with it (Shift+click: long press).' : session ? ' ' : 'Start a session to see the screen.'}
        {paused && hover ? <span className="mono"> #{hover.ordinal} {hover.node.className.split('.').pop()} “{nodeLabel(hover.node)}”</span> : null}
      </div>
    </div>
  );
}
