import { decodePyString, skipString, type Lenient } from '../lenient.js';

/**
 * How UI-TARS's own parser reads a reply (PyPI `ui-tars`, action_parser.parse_action_to_structure_output
 * and parsing_response_to_pyautogui_code), written down as rules so ours reads what it reads and
 * refuses what it refuses:
 * - the action is the text after the last `Action: ` (with the space); a reply without `Action:` is
 *   refused. Actions separated by `)\n\n` are several actions (we refuse more than one);
 * - the call takes keyword arguments whose values are string literals; positional arguments are
 *   ignored there (so a click without `start_box=` fails), anything but a string fails;
 * - `point=` and `start_point=` mean `start_box=`, `end_point=` means `end_box=`;
 * - `type(content='…')`'s content runs to the first `')`: a quote inside needs no escape, escapes
 *   (\' \" \n …) are decoded as Python does, and a raw line break inside it fails;
 * - every value is left-stripped and an empty value counts as absent;
 * - a box is `<point>x y</point>` (integers), or numbers separated by commas with any parentheses
 *   dropped (`(x,y)`, `(x1,y1,x2,y2)`, `x,y`); 2 numbers are a point, 4 a box whose centre is
 *   meant; brackets, `<bbox>` and other counts fail.
 * `<|box_start|>`/`<|box_end|>` are special tokens the server drops from the text (vLLM's
 * skip_special_tokens), so the official parser never sees them; we drop them too.
 */

export interface TarsCall {
  name: string;
  /** Keyword arguments, renamed (point → start_box …), left-stripped, empty ones left out. */
  kwargs: Map<string, string>;
  /** The call as written, for error messages. */
  text: string;
}

const RENAMED: Readonly<Record<string, string>> = { point: 'start_box', start_point: 'start_box', end_point: 'end_box' };
const ACTION_MARK = 'Action: ';

const cut = (s: string, n = 60) => JSON.stringify(s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The one call after the last `Action: `, read by the official parser's rules (a reason when there is none or more). */
export function readTarsCall(output: string): Lenient<TarsCall> {
  const text = output.trim();
  if (!text.includes('Action:')) return { ok: false, reason: 'no "Action:" in the reply (UI-TARS writes "Thought: …" then "Action: …")' };
  const at = text.lastIndexOf(ACTION_MARK);
  if (at < 0) return { ok: false, reason: '"Action:" is not followed by a space and the call' };
  const body = text.slice(at + ACTION_MARK.length).replace(/^[ \t]+/, '');
  const head = /^([A-Za-z_]\w*)[ \t]*\(/.exec(body);
  if (!head) return { ok: false, reason: `the action is not a call: ${cut(body)}` };
  const name = head[1]!;
  const read = name === 'type' && body.startsWith("type(content=") ? readType(body) : readKwargs(body, head[0].length);
  if (!read.ok) return read;
  const rest = body.slice(read.value.end);
  if (rest.trim()) {
    return { ok: false, reason: /^\s*\n\s*\n/.test(rest) ? `more than one action in one reply: ${cut(rest.trim())}` : `text after the action: ${cut(rest.trim())}` };
  }
  const kwargs = new Map<string, string>();
  const seen = new Set<string>();
  for (const [k, raw] of read.value.pairs) {
    const key = RENAMED[k] ?? k;
    if (seen.has(key)) return { ok: false, reason: `${name}(): ${key} given twice` };
    seen.add(key);
    const v = raw.trimStart();
    if (v !== '') kwargs.set(key, v);
  }
  return { ok: true, value: { name, kwargs, text: body.slice(0, read.value.end) } };
}

type Read = Lenient<{ pairs: Array<[string, string]>; end: number }>;

/** `type(content='…')`: the content runs to the first `')`, unescaped quotes allowed, no raw line break. */
function readType(body: string): Read {
  const m = /^type\(content='([^\n]*?)'\)/.exec(body);
  if (!m) return { ok: false, reason: `type(content='…') is not closed on its line (a truncated reply, a raw line break or other quotes): ${cut(body)}` };
  // A quote not preceded by a backslash is the content's own: escape it, then read the literal.
  const literal = `'${m[1]!.replace(/(?<!\\)'/g, "\\'")}'`;
  if (skipString(literal, 0) !== literal.length) return { ok: false, reason: `type() content is not a string literal: ${cut(m[1]!)}` };
  return { ok: true, value: { pairs: [['content', decodePyString(literal)]], end: m[0].length } };
}

/** `name(key='value', …)` from the parenthesis at `from`; strings only, no line break outside them. */
function readKwargs(body: string, from: number): Read {
  const pairs: Array<[string, string]> = [];
  let i = from;
  const ws = () => {
    while (body[i] === ' ' || body[i] === '\t') i++;
  };
  for (;;) {
    ws();
    if (i >= body.length) return { ok: false, reason: `the call is not closed (a truncated reply): ${cut(body)}` };
    if (body[i] === ')') return { ok: true, value: { pairs, end: i + 1 } };
    const key = /^([A-Za-z_]\w*)[ \t]*=(?!=)[ \t]*/.exec(body.slice(i, i + 200));
    if (!key) {
      const what = body[i] === '\n' || body[i] === '\r' ? 'a line break inside the call' : `a positional argument or other text at ${cut(body.slice(i), 30)}`;
      return { ok: false, reason: `expected key='value' arguments, found ${what}` };
    }
    i += key[0].length;
    const q = body[i];
    if (q !== "'" && q !== '"') return { ok: false, reason: `${key[1]} must be a string literal, found ${cut(body.slice(i), 30)}` };
    const end = skipString(body, i);
    if (end < 0) return { ok: false, reason: `the string of ${key[1]} is not closed (a truncated reply)` };
    pairs.push([key[1]!, decodePyString(body.slice(i, end))]);
    i = end;
    ws();
    if (body[i] === ',') i++;
    else if (body[i] !== ')' && i < body.length) return { ok: false, reason: `expected "," or ")" after ${key[1]}, found ${cut(body.slice(i), 30)}` };
  }
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(inf|infinity|nan)$/i;

/** A box value's point in the model's frame: 2 numbers, or the centre of 4 (a reason otherwise). */
export function tarsPoint(value: string): Lenient<[number, number]> {
  const cleaned = value
    .replace(/<\|box_(start|end)\|>/g, '')
    .replace(/<point>(\d+)\s+(\d+)<\/point>/g, '($1,$2)')
    .replace(/[()]/g, '');
  const parts = cleaned.split(',').map((s) => s.trim());
  const nums: number[] = [];
  for (const p of parts) {
    if (NUMBER.test(p)) nums.push(Number(p));
    else if (NON_FINITE.test(p)) nums.push(Number.NaN);
    else return { ok: false, reason: `not a point "(x,y)", "<point>x y</point>" or box "(x1,y1,x2,y2)": ${cut(value)}` };
  }
  if (nums.length === 2) return { ok: true, value: [nums[0]!, nums[1]!] };
  if (nums.length === 4) return { ok: true, value: [(nums[0]! + nums[2]!) / 2, (nums[1]! + nums[3]!) / 2] };
  return { ok: false, reason: `a point has 2 numbers and a box 4, got ${nums.length}: ${cut(value)}` };
}

/** Keys as pyautogui gets them from hotkey(key='…'): split on spaces, arrow names shortened, lowercase. */
export function tarsKeys(key: string): string[] {
  const arrows: Record<string, string> = { arrowleft: 'left', arrowright: 'right', arrowup: 'up', arrowdown: 'down' };
  const k = arrows[key] ?? key;
  return k.split(/\s+/).filter(Boolean).map((x) => (x === 'space' ? ' ' : x.length > 1 ? x.toLowerCase() : x));
}

/** type() content: the text, and whether a trailing newline (or a written "\n") asks for Enter. */
export function tarsTyped(content: string): { text: string; submit: boolean } {
  let text = content;
  let submit = false;
  for (;;) {
    if (text.endsWith('\n')) text = text.slice(0, -1);
    else if (text.endsWith('\\n')) text = text.slice(0, -2);
    else break;
    submit = true;
  }
  return { text, submit };
}
