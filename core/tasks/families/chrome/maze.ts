import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { boundsCenter } from '../../../a11y/ui-tree.js';
import type { Rng } from '../../../util/rng.js';
import type { OracleUi } from '../../oracle.js';
import { defineTask } from '../../task.js';
import { verdictOf } from '../../verdict.js';
import { CHROME_PKG, openTaskPage, pageOpen, PREAMBLE, pushTaskPage, requireWeb, successShown, successSubgoal } from './common.js';
import { mazePage } from './pages.js';

/**
 * AndroidWorld's BrowserMaze: move the X to the bottom-right cell with the direction buttons. The
 * walls are colours on screen, not text, so the oracle finds its way by trying moves: a press that
 * leaves the X where it was met a wall (depth-first search, backing out of dead ends).
 */
const Params = z.object({ rows: z.array(z.string().regex(/^[#.]+$/)).min(2).max(8) });

/** Open cells reachable from the top-left, by breadth-first search. */
function reachable(rows: readonly string[]): boolean {
  const n = rows.length;
  const seen = new Set(['0,0']);
  const queue: Array<[number, number]> = [[0, 0]];
  while (queue.length) {
    const [r, c] = queue.shift()!;
    if (r === n - 1 && c === n - 1) return true;
    for (const [dr, dc] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      const [nr, nc] = [r + dr, c + dc];
      if (nr < 0 || nc < 0 || nr >= n || nc >= n || rows[nr]![nc] === '#' || seen.has(`${nr},${nc}`)) continue;
      seen.add(`${nr},${nc}`);
      queue.push([nr, nc]);
    }
  }
  return false;
}

export function drawMaze(rng: Rng, n: number): string[] {
  for (;;) {
    const rows = Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => {
      if ((r === 0 && c === 0) || (r === n - 1 && c === n - 1)) return '.';
      return rng.chance(0.35) ? '#' : '.';
    }).join(''));
    if (reachable(rows)) return rows;
  }
}

const MOVES = { right: 'Right', down: 'Down', left: 'Left', up: 'Up' } as const;
type Move = keyof typeof MOVES;
const OPPOSITE: Record<Move, Move> = { right: 'left', left: 'right', up: 'down', down: 'up' };

const solved = (ui: OracleUi) => ui.exists({ text: 'Success!', packageName: CHROME_PKG });

/** Where the X is on screen, to the nearest 8 px (it moves a whole cell). */
function xAt(ui: OracleUi): string {
  const x = requireWeb(ui, 'android.widget.TextView', (e) => e.node.text === 'X', 'the X');
  const c = boundsCenter(x.node.bounds);
  return `${Math.round(c.x / 8)},${Math.round(c.y / 8)}`;
}

function* press(ui: OracleUi, move: Move): Generator<Action, void, void> {
  yield ui.tap(requireWeb(ui, 'android.widget.Button', (e) => e.node.text === MOVES[move], MOVES[move]));
}

/** Depth-first from the X's cell; true once the page says Success!. */
function* explore(ui: OracleUi, visited: Set<string>): Generator<Action, boolean, void> {
  for (const move of ['right', 'down', 'left', 'up'] as const) {
    const before = xAt(ui);
    yield* press(ui, move);
    if (solved(ui)) return true;
    const after = xAt(ui);
    if (after === before) continue;
    if (!visited.has(after)) {
      visited.add(after);
      if (yield* explore(ui, visited)) return true;
    }
    yield* press(ui, OPPOSITE[move]);
  }
  return false;
}

export const ChromeMaze = defineTask({
  id: 'ChromeMaze',
  apps: ['Chrome', 'Files'],
  difficulty: 'hard',
  maxSteps: 120,
  tags: ['complex_ui', 'multi_app', 'screen_reading'],
  kind: 'completion',
  template: `${PREAMBLE} Then navigate the X to the bottom-right cell, by using the direction buttons.`,
  params: Params,
  generate: (rng) => ({ rows: drawMaze(rng, rng.int(4, 5)) }),
  initialize: async (device, p) => pushTaskPage(device, mazePage(p.rows)),
  check: async (device) => verdictOf(await successShown(device)),
  subgoals: () => [pageOpen, successSubgoal],
  *oracle(_p, ui) {
    yield* openTaskPage(ui);
    if (!(yield* explore(ui, new Set([xAt(ui)])))) throw new Error('ChromeMaze oracle: explored every open cell without reaching the goal');
    yield ui.complete();
  },
});
