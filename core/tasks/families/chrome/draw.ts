import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { boundsArea, type UiElement } from '../../../a11y/ui-tree.js';
import type { OracleUi } from '../../oracle.js';
import { defineTask } from '../../task.js';
import { verdictOf } from '../../verdict.js';
import { openTaskPage, pageOpen, PREAMBLE, pushTaskPage, requireWeb, successShown, successSubgoal, webElements } from './common.js';
import { drawPage } from './pages.js';

/**
 * AndroidWorld's BrowserDraw: draw with the three colours shown at the top of the page, then
 * Submit. The colours are only colours on screen (not text), so the oracle draws one line with each
 * colour of the palette: the three are among them. Lines slope a little, so some pixel on each is
 * wholly covered and holds the pen's exact colour (a line between pixel rows is blended).
 */
const HEX = z.string().regex(/^#[0-9a-f]{6}$/);
const Params = z.object({ targets: z.array(HEX).length(3), palette: z.array(HEX).min(3).max(24) });

const PALETTE = [
  '#e53935', '#8e24aa', '#3949ab', '#039be5', '#00897b', '#7cb342', '#fdd835', '#fb8c00',
  '#6d4c41', '#546e7a', '#d81b60', '#00acc1', '#c0ca33', '#5e35b1', '#43a047', '#f4511e',
];

/** The canvas: the largest box on the page with nothing inside it. */
function canvasOf(ui: OracleUi): UiElement {
  const boxes = webElements(ui, 'android.view.View').filter((e) => e.node.children.length === 0 && !e.node.text);
  const biggest = boxes.sort((a, b) => boundsArea(b.node.bounds) - boundsArea(a.node.bounds))[0];
  if (!biggest) throw new Error('ChromeDraw oracle: no canvas on the page');
  return biggest;
}

function* drawWithEveryColour(ui: OracleUi): Generator<Action, void, void> {
  const swatches = webElements(ui, 'android.widget.Button').filter((e) => e.node.text === '');
  if (swatches.length === 0) throw new Error('ChromeDraw oracle: no colour buttons on the page');
  for (let i = 0; i < swatches.length; i++) {
    yield ui.tap(swatches[i]!);
    const b = canvasOf(ui).node.bounds;
    const h = b.bottom - b.top;
    const w = b.right - b.left;
    const y = Math.round(b.top + (h * (i + 1)) / (swatches.length + 1));
    const rise = Math.max(3, Math.round(h / (swatches.length + 1) / 3));
    yield { action_type: 'swipe', start: [b.left + Math.round(w * 0.1), y], end: [b.right - Math.round(w * 0.1), y + rise], duration_ms: 400 };
  }
}

export const ChromeDraw = defineTask({
  id: 'ChromeDraw',
  apps: ['Chrome', 'Files'],
  difficulty: 'hard',
  maxSteps: 70,
  tags: ['complex_ui', 'multi_app', 'screen_reading'],
  kind: 'completion',
  template: `${PREAMBLE} Then create a drawing using the three colors shown at the top and hit submit.`,
  params: Params,
  generate: (rng) => {
    const palette = rng.sample(PALETTE, rng.int(8, 12));
    return { palette, targets: rng.sample(palette, 3) };
  },
  initialize: async (device, p) => pushTaskPage(device, drawPage(p.targets, p.palette)),
  check: async (device) => verdictOf(await successShown(device)),
  subgoals: () => [pageOpen, successSubgoal],
  *oracle(_p, ui) {
    yield* openTaskPage(ui);
    yield* drawWithEveryColour(ui);
    yield ui.tap(requireWeb(ui, 'android.widget.Button', (e) => e.node.text === 'Submit', 'Submit'));
    yield ui.complete();
  },
});
