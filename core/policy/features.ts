import type { Action } from '../actions/schema.js';
import { appByPackage, findApp } from '../device/app-catalog.js';
import type { Observation } from '../device/observation.js';
import type { StepRecord } from '../episode/record.js';
import { CANDIDATE_KINDS, elementWords, type PolicyCandidate } from './candidates.js';
import type { TextEncoder } from './encoder.js';

/**
 * One feature vector per candidate, rows of a (candidates × featureDim) Float32 matrix. With E the
 * encoder's dimension, a row is:
 *
 *   [ q ⊙ t | q ⊙ v | c | h ⊙ c | s ⊙ c | q | k ⊙ t | kind one-hot | scalars ]
 *
 * q = instruction, t = the element's words (label, description, resource-id words, class) or the
 * candidate's value when it has no element, v = the value typed / app opened / answer given,
 * c = the candidate's own words ("click Save Button"), h = the last two steps' descriptions,
 * s = the screen (package and activity words), k = the instruction's words just before the value
 * ("titled", "note", "number is"). An element-wise product of two unit vectors sums to their
 * cosine, so the network sees "which words match" rather than only "how much"; the raw q lets
 * hidden units combine the instruction with the candidate (Wi-Fi → Settings), which products of
 * the same hashed dimension cannot.
 */
export const SCALAR_FEATURES = [
  'bias', 'cos_instr_target', 'cos_instr_value', 'value_in_instruction', 'label_in_instruction', 'value_len',
  'el_cx', 'el_cy', 'el_w', 'el_h', 'el_checkable', 'el_checked', 'el_focused', 'el_edit_empty', 'el_has_value',
  'step', 'same_as_last', 'times_done', 'last_open_app', 'last_input', 'last_click', 'app_in_front', 'on_launcher',
  'question_answer', 'typed_before', 'value_order', 'field_order', 'screen_mentions', 'field_typed',
] as const;
const NK = CANDIDATE_KINDS.length;
const NS = SCALAR_FEATURES.length;

export function featureDim(encoderDim: number): number {
  return 7 * encoderDim + NK + NS;
}

const LAUNCHER = 'com.google.android.apps.nexuslauncher';

const zeros = new Map<number, Float32Array>();
function zeroVector(dim: number): Float32Array {
  let z = zeros.get(dim);
  if (!z) zeros.set(dim, (z = new Float32Array(dim)));
  return z;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function actionKey(a: Action | undefined): string {
  return a ? JSON.stringify({ ...a, clear: undefined }) : '';
}

export interface FeatureContext {
  instruction: string;
  step: number;
  history: readonly StepRecord[];
}

/** The (candidates × featureDim) matrix, row-major. */
export function featurize(obs: Observation, ctx: FeatureContext, candidates: readonly PolicyCandidate[], enc: TextEncoder): Float32Array {
  const E = enc.dim;
  const F = featureDim(E);
  const out = new Float32Array(candidates.length * F);
  const q = enc.embed(ctx.instruction);
  const instrLower = ctx.instruction.toLowerCase();
  const recent = ctx.history.slice(-2).map((s) => s.description ?? s.action?.action_type ?? '').join(' ');
  const h = enc.embed(recent);
  const pkg = obs.foreground.package;
  const s = enc.embed(`${pkg.replace(/[._]/g, ' ')} ${obs.foreground.activity.replace(/^.*\./, '').replace(/([a-z])([A-Z])/g, '$1 $2')}`);
  const last = ctx.history.at(-1)?.action;
  const doneKeys = ctx.history.map((st) => actionKey(st.action));
  const typed = new Set(ctx.history.flatMap((st) => (st.action?.action_type === 'input_text' ? [st.action.text] : [])));
  const { width: W, height: H } = obs.screen;
  const frontApp = appByPackage(pkg);
  const question = /\?|\banswer\b/i.test(ctx.instruction) ? 1 : 0;
  // Values in order of their first appearance in the instruction, editable fields in screen order.
  const valueList = [...new Set(candidates.flatMap((c) => (c.kind === 'input_text' && c.value ? [c.value] : [])))]
    .map((v) => ({ v, at: instrLower.indexOf(v.toLowerCase()) }))
    .sort((a, b) => (a.at < 0 ? 1e9 : a.at) - (b.at < 0 ? 1e9 : b.at));
  const valueRank = new Map(valueList.map((x, i) => [x.v, valueList.length > 1 ? i / (valueList.length - 1) : 0]));
  const fields = [...new Set(candidates.flatMap((c) => (c.kind === 'input_text' && c.element ? [c.element.ordinal] : [])))];
  const fieldRank = new Map(fields.map((o, i) => [o, fields.length > 1 ? i / (fields.length - 1) : 0]));
  const typedFields = new Set(ctx.history.flatMap((st) => (st.action?.action_type === 'input_text' && st.action.index !== undefined ? [st.action.index] : [])));
  const mentions = obs.elements.filter((e) => {
    const l = (e.node.text.trim() || e.node.contentDesc.trim()).toLowerCase();
    return l.length > 2 && instrLower.includes(l);
  }).length;
  const before = new Map<string, Float32Array>();
  const lead = (value: string): Float32Array => {
    let e = before.get(value);
    if (!e) {
      const at = instrLower.indexOf(value.toLowerCase());
      e = enc.embed(at < 0 ? '' : ctx.instruction.slice(Math.max(0, at - 30), at).split(/\s+/).slice(-4).join(' '));
      before.set(value, e);
    }
    return e;
  };

  candidates.forEach((cand, r) => {
    const row = out.subarray(r * F, (r + 1) * F);
    const words = cand.element ? elementWords(cand.element) : (cand.value ?? '');
    const t = enc.embed(words);
    const v = enc.embed(cand.value ?? '');
    const c = enc.embed(cand.text);
    const k = cand.kind === 'input_text' && cand.value ? lead(cand.value) : zeroVector(E);
    for (let i = 0; i < E; i++) {
      row[i] = q[i]! * t[i]!;
      row[E + i] = q[i]! * v[i]!;
      row[2 * E + i] = c[i]!;
      row[3 * E + i] = h[i]! * c[i]!;
      row[4 * E + i] = s[i]! * c[i]!;
      row[5 * E + i] = q[i]!;
      row[6 * E + i] = k[i]! * t[i]!;
    }
    row[7 * E + CANDIDATE_KINDS.indexOf(cand.kind)] = 1;
    const o = 7 * E + NK;
    const node = cand.element?.node;
    const label = node ? (node.text.trim() || node.contentDesc.trim()).toLowerCase() : '';
    const key = actionKey(cand.action);
    const scalars: Record<(typeof SCALAR_FEATURES)[number], number> = {
      bias: 1,
      cos_instr_target: dot(q, t),
      cos_instr_value: dot(q, v),
      value_in_instruction: cand.value && instrLower.includes(cand.value.toLowerCase()) ? 1 : 0,
      label_in_instruction: label.length > 1 && instrLower.includes(label) ? 1 : 0,
      value_len: cand.value ? Math.min(1, Math.log1p(cand.value.length) / 5) : 0,
      el_cx: node ? (node.bounds.left + node.bounds.right) / 2 / W : 0,
      el_cy: node ? (node.bounds.top + node.bounds.bottom) / 2 / H : 0,
      el_w: node ? (node.bounds.right - node.bounds.left) / W : 0,
      el_h: node ? (node.bounds.bottom - node.bounds.top) / H : 0,
      el_checkable: node?.checkable ? 1 : 0,
      el_checked: node?.checked ? 1 : 0,
      el_focused: node?.focused ? 1 : 0,
      el_edit_empty: node && cand.kind === 'input_text' && !node.text.trim() ? 1 : 0,
      el_has_value: node && cand.value !== undefined && node.text.trim() === cand.value.trim() ? 1 : 0,
      step: Math.min(1, ctx.step / 20),
      same_as_last: key === actionKey(last) ? 1 : 0,
      times_done: Math.min(1, doneKeys.filter((k) => k === key).length / 3),
      last_open_app: last?.action_type === 'open_app' ? 1 : 0,
      last_input: last?.action_type === 'input_text' ? 1 : 0,
      last_click: last?.action_type === 'click' ? 1 : 0,
      app_in_front: cand.kind === 'open_app' && frontApp !== undefined && findApp(cand.value ?? '') === frontApp ? 1 : 0,
      on_launcher: pkg === LAUNCHER ? 1 : 0,
      question_answer: question && cand.kind === 'answer' ? 1 : 0,
      typed_before: cand.kind === 'input_text' && typed.has(cand.value ?? '') ? 1 : 0,
      value_order: cand.kind === 'input_text' ? (valueRank.get(cand.value ?? '') ?? 0) : 0,
      field_order: cand.kind === 'input_text' && cand.element ? (fieldRank.get(cand.element.ordinal) ?? 0) : 0,
      screen_mentions: Math.min(1, mentions / 3),
      field_typed: cand.kind === 'input_text' && cand.element && typedFields.has(cand.element.ordinal) ? 1 : 0,
    };
    SCALAR_FEATURES.forEach((name, i) => {
      row[o + i] = scalars[name];
    });
  });
  return out;
}
