import { ACTION_TYPES, type Action } from '../../actions/schema.js';
import { appByPackage, findApp } from '../../device/app-catalog.js';
import { elementWords } from '../../policy/candidates.js';
import type { TextEncoder } from '../../policy/encoder.js';
import { actionText, targetElement, type JudgeInput } from './judge.js';

/**
 * The builtin judge's view of one step (instruction, the action's target element / text, the
 * screen's package and activity, the action type), one Float32 row. With E the encoder dimension:
 *
 *   [ q | t | q ⊙ t | q ⊙ v | s | q ⊙ s | h ⊙ c | action-type one-hot | scalars ]
 *
 * q = instruction, t = the target element's words (or the recorded label), v = the value typed /
 * app opened / answer given, s = the screen (package and activity words), h = the last two steps'
 * descriptions, c = the action's own words. Products of unit vectors sum to cosines, so the
 * classifier sees which words match; the raw q and t let hidden units combine them (Wi-Fi →
 * Settings). Unlike the policy's features (core/policy/features.ts) nothing here compares
 * candidates with each other: a judge sees one action at a time, as GUI-Shepherd does.
 */
export const JUDGE_SCALARS = [
  'bias', 'cos_instr_target', 'cos_instr_value', 'value_in_instruction', 'label_in_instruction', 'cos_instr_screen',
  'front_app_named', 'opened_app_named', 'opened_app_in_front', 'on_launcher', 'step', 'same_as_last', 'times_done',
  'has_target', 'screen_unknown', 'history_empty',
] as const;
/**
 * The one-hot's types: the judge's layout predates press_key and double_tap, which share the Enter key's and the click's
 * slots (stored judges keep their input size).
 */
const JUDGE_ACTION_TYPES: readonly string[] = ACTION_TYPES.filter((t) => t !== 'press_key' && t !== 'double_tap');
const JUDGE_SLOT: Partial<Record<Action['action_type'], Action['action_type']>> = { press_key: 'keyboard_enter', double_tap: 'click' };
const NA = JUDGE_ACTION_TYPES.length;
const NS = JUDGE_SCALARS.length;
const BLOCKS = 7;

export function judgeFeatureDim(encoderDim: number): number {
  return BLOCKS * encoderDim + NA + NS;
}

const LAUNCHER = 'com.google.android.apps.nexuslauncher';

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function key(a: Action | undefined): string {
  return a ? JSON.stringify({ ...a, clear: undefined }) : '';
}

function valueOf(a: Action): string {
  switch (a.action_type) {
    case 'input_text':
    case 'answer':
      return a.text;
    case 'open_app':
      return a.app_name;
    default:
      return '';
  }
}

/** Words naming the app: its launcher label and aliases. */
function appNamed(instrLower: string, pkg: string): boolean {
  const app = appByPackage(pkg);
  if (!app) return false;
  return [app.name.toLowerCase(), ...app.aliases].some((n) => n.length > 1 && instrLower.includes(n));
}

export function judgeFeatures(input: JudgeInput, enc: TextEncoder, out?: Float32Array, offset = 0): Float32Array {
  const E = enc.dim;
  const row = out ?? new Float32Array(judgeFeatureDim(E));
  const a = input.action;
  const el = targetElement(input);
  const targetWords = el ? elementWords(el) : (input.targetLabel ?? '');
  const value = valueOf(a);
  const instrLower = input.instruction.toLowerCase();
  const fg = input.foreground;
  const q = enc.embed(input.instruction);
  const t = enc.embed(targetWords);
  const v = enc.embed(value);
  const s = enc.embed(`${fg.package.replace(/[._]/g, ' ')} ${fg.activity.replace(/^.*\./, '').replace(/([a-z])([A-Z])/g, '$1 $2')}`);
  const h = enc.embed(input.history.slice(-2).map((x) => x.description ?? x.action?.action_type ?? '').join(' '));
  const c = enc.embed(`${a.action_type.replace(/_/g, ' ')} ${actionText(input)}`);
  let o = offset;
  const put = (f: (i: number) => number) => {
    for (let i = 0; i < E; i++) row[o + i] = f(i);
    o += E;
  };
  put((i) => q[i]!);
  put((i) => t[i]!);
  put((i) => q[i]! * t[i]!);
  put((i) => q[i]! * v[i]!);
  put((i) => s[i]!);
  put((i) => q[i]! * s[i]!);
  put((i) => h[i]! * c[i]!);
  row[o + JUDGE_ACTION_TYPES.indexOf(JUDGE_SLOT[a.action_type] ?? a.action_type)] = 1;
  o += NA;
  const label = el ? (el.node.text.trim() || el.node.contentDesc.trim()).toLowerCase() : (input.targetLabel ?? '').toLowerCase();
  const opened = a.action_type === 'open_app' ? findApp(a.app_name) : undefined;
  const k = key(a);
  const scalars: Record<(typeof JUDGE_SCALARS)[number], number> = {
    bias: 1,
    cos_instr_target: dot(q, t),
    cos_instr_value: dot(q, v),
    value_in_instruction: value && instrLower.includes(value.toLowerCase()) ? 1 : 0,
    label_in_instruction: label.length > 1 && instrLower.includes(label) ? 1 : 0,
    cos_instr_screen: dot(q, s),
    front_app_named: appNamed(instrLower, fg.package) ? 1 : 0,
    opened_app_named: opened && appNamed(instrLower, opened.package) ? 1 : 0,
    opened_app_in_front: opened && opened.package === fg.package ? 1 : 0,
    on_launcher: fg.package === LAUNCHER ? 1 : 0,
    step: Math.min(1, input.step / 20),
    same_as_last: k === key(input.history.at(-1)?.action) ? 1 : 0,
    times_done: Math.min(1, input.history.filter((x) => key(x.action) === k).length / 3),
    has_target: el || input.targetLabel ? 1 : 0,
    screen_unknown: input.elements.length === 0 ? 1 : 0,
    history_empty: input.history.length === 0 ? 1 : 0,
  };
  JUDGE_SCALARS.forEach((name, i) => {
    row[o + i] = scalars[name];
  });
  return row;
}
