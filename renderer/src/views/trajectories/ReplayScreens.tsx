import type { Bounds, Trajectory } from '../../../../core/api/types.js';
import { Screen, type ScreenBox } from '../../components/Screen.js';
import { useApp } from '../../store/index.js';
import { positionOf } from '../../store/slices/trajectories-replay.js';
import { stepOverlay, type Size } from './overlay.js';
import { wireframeOf, type ParsedTree } from './tree-model.js';

/** The stored screenshot for a hash: its bytes, or why there are none (for the empty screen's text). */
export function useStoredPng(hash: string | null): { png: Uint8Array | null; empty: string } {
  const png = useApp((s) => (hash ? s.screenshots[hash] : undefined));
  const error = useApp((s) => (hash ? s.contentErrors[hash] : undefined));
  if (!hash) return { png: null, empty: 'No screenshot recorded' };
  if (png) return { png, empty: '' };
  return { png: null, empty: error ? `Screenshot unavailable — ${error}` : 'Loading screenshot…' };
}

interface ScreensProps {
  t: Trajectory;
  step: number;
  tree: ParsedTree | null;
  device: Size;
  /** A node or candidate the pointer is over, outlined on the main screen. */
  hover: Bounds | null;
}

/** The screen the step was taken on, with the action drawn over it. */
export function MainScreen({ t, step, tree, device, hover }: ScreensProps) {
  const pos = positionOf(t, step);
  const { png, empty } = useStoredPng(pos.screenshot);
  const overlay = stepOverlay(pos.step, tree, device);
  const boxes: ScreenBox[] = hover ? [...overlay.boxes, { bounds: hover, kind: 'hover' }] : overlay.boxes;
  return (
    <figure className="replay-figure">
      <figcaption>{pos.step ? <>Step {step + 1} <span className="muted">— before its action</span></> : <>Final screen <span className="muted">— after the last step</span></>}</figcaption>
      <Screen testId="replay-screen" png={png} device={device} boxes={boxes} marker={overlay.marker} height={540} emptyText={empty}
        wireframe={tree ? wireframeOf(tree) : null} />
    </figure>
  );
}

/** This step's screen and the next one's, small, without overlays: what the action changed. */
export function BeforeAfter({ t, step, device }: Omit<ScreensProps, 'tree' | 'hover'>) {
  const here = positionOf(t, step);
  const atEnd = step >= t.steps.length;
  const next = atEnd ? null : positionOf(t, step + 1);
  const before = useStoredPng(here.screenshot);
  const after = useStoredPng(next?.screenshot ?? null);
  const beforeTree = useApp((s) => (here.tree ? s.trees[here.tree] : undefined));
  const afterTree = useApp((s) => (next?.tree ? s.trees[next.tree] : undefined));
  return (
    <div className="replay-before-after">
      <figure className="replay-figure">
        <figcaption>Before</figcaption>
        <Screen testId="replay-before" png={before.png} device={device} height={220} emptyText={before.empty}
          wireframe={beforeTree ? wireframeOf(beforeTree) : null} />
      </figure>
      <span className="replay-arrow" aria-hidden>→</span>
      <figure className="replay-figure">
        <figcaption>After{next && !next.step ? ' (final)' : ''}</figcaption>
        <Screen testId="replay-after" png={after.png} device={device} height={220}
          emptyText={atEnd ? 'The episode ended here' : after.empty} wireframe={!atEnd && afterTree ? wireframeOf(afterTree) : null} />
      </figure>
    </div>
  );
}
