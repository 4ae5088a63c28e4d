import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../core/actions/schema.js';
import { uiTarsFormat } from '../../core/policy/vlm/formats/ui-tars.js';
import { VlmCoordinateError, VlmFormatError } from '../../core/policy/vlm/errors.js';
import type { ParseContext } from '../../core/policy/vlm/format.js';
import { PYTHON, PythonEnvMissingError, REPO_ROOT } from '../python-env.js';

/**
 * Parity with UI-TARS's own parser (PyPI ui-tars, issue 18): every reply of the corpus goes through the
 * official parser (test/policy/vlm-parity/ui_tars_official.py, one Python process for the whole corpus)
 * and through ours, and the executed actions are compared: the same kind, the tap within 1 px on the
 * device screen, the same text, Enter, scroll direction and key. Where the official code raises, or
 * would execute nothing or something with no phone equivalent, ours must be a format error; where
 * its point is off the screen, a coordinate error. A corpus line marked `ours: "error"` is a documented
 * refusal of ours (a truncated call the official parser completes), checked to be one.
 */
interface CorpusLine { reply: string; screen: [number, number]; image?: [number, number]; mode?: 'v1' | '1.5'; ours?: 'error'; note: string }
type Point = [number, number];
type Neutral =
  | { kind: 'tap' | 'long_press'; point: Point }
  | { kind: 'type'; text: string; enter: boolean }
  | { kind: 'scroll'; direction: string; point: Point | null }
  | { kind: 'drag'; point: Point; end: Point }
  | { kind: 'key'; keys: string[] }
  | { kind: 'open_app' | 'finished'; text: string }
  | { kind: 'home' | 'back' | 'wait' | 'call_user' }
  | { kind: 'noop' | 'other'; name: string };
type Official = { actions: Neutral[] } | { error: string };

const CORPUS = join(REPO_ROOT, 'test', 'policy', 'vlm-corpus', 'ui-tars.jsonl');
const SCRIPT = join(REPO_ROOT, 'test', 'policy', 'vlm-parity', 'ui_tars_official.py');
const lines: CorpusLine[] = readFileSync(CORPUS, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as CorpusLine);
/** The official parser's image bounds (ui_tars.action_parser MIN_PIXELS / MAX_PIXELS), which UI-TARS-1.5 users set. */
const TARS_15_PIXELS = { minPixels: 100 * 28 * 28, maxPixels: 16384 * 28 * 28 };
const PHONE_DIRECTIONS = ['up', 'down', 'left', 'right'];

let official: Official[];
beforeAll(() => {
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  official = JSON.parse(execFileSync(PYTHON, [SCRIPT, CORPUS], { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } })) as Official[];
  expect(official).toHaveLength(lines.length);
});

function ctxOf(line: CorpusLine): ParseContext {
  const [width, height] = line.screen;
  const image = line.image ? { width: line.image[0], height: line.image[1] } : { width, height };
  return line.mode === '1.5' ? { screen: { width, height }, image, coordinates: 'smart-resize', ...TARS_15_PIXELS } : { screen: { width, height }, image, coordinates: 'relative-1000' };
}

/** Our action in the same neutral terms; keyboard_enter is the one that has two official spellings. */
function neutralOf(a: Action): Neutral | 'enter' {
  switch (a.action_type) {
    case 'click': return { kind: 'tap', point: [a.x!, a.y!] };
    case 'long_press': return { kind: 'long_press', point: [a.x!, a.y!] };
    case 'input_text': return { kind: 'type', text: a.text, enter: a.submit === true };
    case 'keyboard_enter': return 'enter';
    case 'scroll': return { kind: 'scroll', direction: a.direction, point: null };
    case 'swipe': return { kind: 'drag', point: a.start, end: a.end };
    case 'open_app': return { kind: 'open_app', text: a.app_name };
    case 'navigate_home': return { kind: 'home' };
    case 'navigate_back': return { kind: 'back' };
    case 'wait': return { kind: 'wait' };
    case 'answer': return { kind: 'finished', text: a.text };
    case 'status': return a.goal_status === 'complete' ? { kind: 'finished', text: '' } : { kind: 'call_user' };
    default: throw new Error(`unexpected ${JSON.stringify(a)}`);
  }
}

/** Why ours must refuse what the official parser gave, or null when ours must execute the same. */
function mustRefuse(o: Official, screen: Point): 'format' | 'coordinate' | null {
  if ('error' in o || o.actions.length !== 1) return 'format';
  const n = o.actions[0]!;
  if (n.kind === 'noop' || n.kind === 'other') return 'format';
  if (n.kind === 'key' && !(n.keys.length === 1 && ['enter', 'return'].includes(n.keys[0]!.toLowerCase()))) return 'format';
  if (n.kind === 'scroll' && !PHONE_DIRECTIONS.includes(n.direction.trim().toLowerCase())) return 'format';
  const points = 'point' in n ? [n.point, ...('end' in n ? [n.end] : [])] : [];
  // The official point is device pixels: the screen's far edge (1000, or the resized width) is on it.
  const off = (p: Point | null) => p !== null && !(p[0] >= 0 && p[1] >= 0 && p[0] <= screen[0] && p[1] <= screen[1]);
  return points.some(off) ? 'coordinate' : null;
}

function ours(line: CorpusLine): { action: Action } | { error: VlmFormatError } {
  try {
    return { action: uiTarsFormat.parse(line.reply, ctxOf(line)).action };
  } catch (e) {
    if (!(e instanceof VlmFormatError)) throw e;
    return { error: e };
  }
}

function near(a: Point, b: Point, what: string): void {
  expect(Math.abs(a[0] - b[0]), `${what} x: ours ${a}, official ${b}`).toBeLessThanOrEqual(1);
  expect(Math.abs(a[1] - b[1]), `${what} y: ours ${a}, official ${b}`).toBeLessThanOrEqual(1);
}

describe('UI-TARS replies: ours against the official ui-tars parser', () => {
  it('the corpus covers every action kind, both coordinate modes and the refusals', () => {
    expect(lines.length).toBeGreaterThanOrEqual(70);
    const kinds = new Set(official.flatMap((o, i) => (mustRefuse(o, lines[i]!.screen) === null && !lines[i]!.ours && 'actions' in o ? [o.actions[0]!.kind] : [])));
    expect([...kinds].sort()).toEqual(['back', 'call_user', 'drag', 'finished', 'home', 'key', 'long_press', 'open_app', 'scroll', 'tap', 'type', 'wait']);
    const executed = official.flatMap((o) => ('actions' in o && o.actions.length === 1 ? [o.actions[0]!] : []));
    const directions = new Set(executed.flatMap((n) => (n.kind === 'scroll' ? [n.direction.toLowerCase()] : [])));
    for (const d of PHONE_DIRECTIONS) expect(directions.has(d), d).toBe(true);
    expect(executed.some((n) => n.kind === 'type' && n.enter) && executed.some((n) => n.kind === 'type' && !n.enter)).toBe(true);
    expect(lines.filter((l) => l.mode === '1.5').length).toBeGreaterThanOrEqual(10);
    expect(official.filter((o) => 'error' in o).length).toBeGreaterThanOrEqual(15);
  });

  it.each(lines.map((l, i) => [i + 1, l.note, l] as const))('line %i: %s', (i, _note, line) => {
    const o = official[i - 1]!;
    const mine = ours(line);
    const shown = `official ${JSON.stringify(o)}, ours ${'error' in mine ? mine.error.message : JSON.stringify(mine.action)}`;
    if (line.ours === 'error') {
      // A documented refusal: the official parser executes it, we refuse it.
      expect('actions' in o && o.actions.length === 1, shown).toBe(true);
      expect('error' in mine, shown).toBe(true);
      return;
    }
    const refuse = mustRefuse(o, line.screen);
    if (refuse) {
      expect('error' in mine, shown).toBe(true);
      if (refuse === 'coordinate') expect((mine as { error: VlmFormatError }).error, shown).toBeInstanceOf(VlmCoordinateError);
      return;
    }
    expect('action' in mine, shown).toBe(true);
    const want = (o as { actions: Neutral[] }).actions[0]!;
    const got = neutralOf((mine as { action: Action }).action);
    if (got === 'enter') {
      const isEnter = (want.kind === 'type' && want.text === '' && want.enter) || (want.kind === 'key' && ['enter', 'return'].includes(want.keys[0]!.toLowerCase()));
      expect(isEnter, shown).toBe(true);
      return;
    }
    expect(got.kind, shown).toBe(want.kind);
    switch (want.kind) {
      case 'tap':
      case 'long_press':
        near((got as { point: Point }).point, want.point, shown);
        break;
      case 'drag':
        near((got as { point: Point }).point, want.point, shown);
        near((got as { end: Point }).end, want.end, shown);
        break;
      case 'type':
        expect(got, shown).toEqual(want);
        break;
      case 'scroll':
        expect((got as { direction: string }).direction, shown).toBe(want.direction.trim().toLowerCase());
        break;
      case 'finished':
        // An answer is graded without its surrounding whitespace, which ours trims.
        expect((got as { text: string }).text, shown).toBe(want.text.trim());
        break;
      case 'open_app':
        expect(got, shown).toEqual(want);
        break;
      default:
        expect(got, shown).toEqual(want);
    }
  });
});
