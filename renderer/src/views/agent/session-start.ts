import type { StoreApi } from 'zustand';
import type { SessionStart } from '../../../../core/api/api.js';
import type { Breakpoint, SessionInfo, SessionPolicy, VlmFormatId } from '../../../../core/api/types.js';
import type { AppState } from '../../store/index.js';

/** core/tasks/free-form.ts's template id (the renderer imports no core values). */
export const FREE_FORM_ID = 'FreeForm';

/** The Agent view's start form, as typed (numbers are checked by formProblem before use). */
export interface AgentForm {
  templateId: string;
  seed: string;
  /** A free-form instruction; when given, it replaces the task (no checker, no oracle). */
  instruction: string;
  policy: SessionPolicy;
  /** Empty: the task's own budget. */
  maxSteps: string;
  /** Policy `vlm-replay`: the format the recorded replies are in, and their text (a file's, loaded or pasted). */
  repliesFormat: VlmFormatId;
  repliesText: string;
}

export class SessionFormError extends Error {
  override name = 'SessionFormError';
}

export class NoDeviceError extends Error {
  override name = 'NoDeviceError';
  constructor() {
    super('No online device: start a SimDroid (or connect one) in the Devices view');
  }
}

export class SessionWaitError extends Error {
  override name = 'SessionWaitError';
  constructor(readonly sessionId: string, ms: number) {
    super(`Session ${sessionId} did not stop within ${ms / 1000} s`);
  }
}

/** The policies a Reset can start again from a session's name alone (a replay's replies are only in its start input). */
const POLICIES: readonly SessionPolicy[] = ['oracle', 'random', 'manual'];

/**
 * The policy picker's groups: built-in, VLM endpoint profiles (`vlm:`), Training's checkpoints (`checkpoint:<name>`),
 * checkpoints with an app's adapter (`adapter:`), registered policy files (`checkpoint:<file>.json|.onnx`).
 */
export type PolicyGroup = 'builtin' | 'vlm' | 'checkpoint' | 'adapter' | 'registered';
export const POLICY_GROUP_LABELS: Record<PolicyGroup, string> = {
  builtin: 'Built-in',
  vlm: 'VLM endpoints (Settings)',
  checkpoint: 'Checkpoints (Training, greedy)',
  adapter: 'Checkpoints with an app adapter (Adaptation; the adapter scores its app)',
  registered: 'Registered policies (<data folder>/policies, greedy)',
};

export function policyGroup(name: SessionPolicy): PolicyGroup {
  if (name.startsWith('vlm:')) return 'vlm';
  if (name.startsWith('adapter:')) return 'adapter';
  if (name.startsWith('checkpoint:')) return /\.(json|onnx)$/.test(name) ? 'registered' : 'checkpoint';
  return 'builtin';
}

/** The policies in their groups, in the groups' order, empty groups left out. */
export function groupPolicies<P extends { name: SessionPolicy }>(policies: readonly P[]): Array<{ group: PolicyGroup; policies: P[] }> {
  return (Object.keys(POLICY_GROUP_LABELS) as PolicyGroup[])
    .map((group) => ({ group, policies: policies.filter((p) => policyGroup(p.name) === group) }))
    .filter((g) => g.policies.length > 0);
}

/** What is wrong with the form (the first problem), or null; `only` checks just those fields. */
export function formProblem(f: AgentForm, only?: ReadonlyArray<keyof AgentForm>): SessionFormError | null {
  const check = (k: keyof AgentForm) => !only || only.includes(k);
  const freeForm = f.instruction.trim() !== '';
  if (freeForm && check('policy') && f.policy === 'oracle') return new SessionFormError('A free-form instruction has no oracle: choose random or manual');
  if (check('repliesText') && f.policy === 'vlm-replay' && f.repliesText.trim() === '') {
    return new SessionFormError('Load the recorded replies (a file: one reply per line, or a JSON array of strings)');
  }
  if (!freeForm && check('templateId') && !f.templateId) return new SessionFormError('Choose a task');
  if (!freeForm && check('seed') && !/^\d{1,9}$/.test(f.seed.trim())) return new SessionFormError(`Seed must be a whole number ≥ 0, not ${JSON.stringify(f.seed)}`);
  if (check('maxSteps') && f.maxSteps.trim() !== '') {
    const n = Number(f.maxSteps);
    if (!/^\d+$/.test(f.maxSteps.trim()) || n < 1 || n > 500) return new SessionFormError(`Max steps must be a whole number from 1 to 500 (or empty), not ${JSON.stringify(f.maxSteps)}`);
  }
  return null;
}

/**
 * The start input for a form, or for starting an existing session again (Reset of a session this
 * view did not start): same task, seed, device and breakpoints; a replay's policy is what it
 * hands over to ("replay+oracle" → oracle).
 */
export function sessionStartOf(form: AgentForm | null, serial: string, breakpoints: Breakpoint[], info?: SessionInfo): SessionStart {
  if (form) {
    const start: SessionStart = form.instruction.trim()
      ? { serial, instruction: form.instruction.trim(), policy: form.policy, breakpoints }
      : { serial, templateId: form.templateId, seed: Number(form.seed), policy: form.policy, breakpoints };
    if (form.maxSteps.trim()) start.maxSteps = Number(form.maxSteps);
    if (form.policy === 'vlm-replay') start.replies = { format: form.repliesFormat, text: form.repliesText };
    return start;
  }
  if (!info) throw new SessionFormError('Nothing to start: no form and no session');
  const then = info.policy.split('+').pop() as SessionPolicy;
  const policy = POLICIES.includes(then) || then.startsWith('vlm:') || then.startsWith('checkpoint:') ? then : 'manual';
  if (info.templateId === FREE_FORM_ID) return { serial, instruction: info.instruction, policy: policy === 'oracle' ? 'manual' : policy, breakpoints };
  return { serial, templateId: info.templateId, seed: info.seed, policy, breakpoints };
}

/** Resolves once the store's current session `id` has finished (its events keep it current). */
export function waitForFinish(store: StoreApi<AppState>, id: string, ms = 20_000): Promise<void> {
  const done = (s: AppState) => s.sessionId !== id || s.session?.state === 'finished';
  if (done(store.getState())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new SessionWaitError(id, ms));
    }, ms);
    const off = store.subscribe((s) => {
      if (!done(s)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

const FORM_KEY = 'awb.agent-form';
/** The fields a reload keeps (the replies are a file's worth of text: loaded again, not stored). */
const KEPT = ['templateId', 'seed', 'instruction', 'policy', 'maxSteps', 'repliesFormat'] as const;
type KeptForm = Pick<AgentForm, (typeof KEPT)[number]>;

const storage = (): Storage | null => {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage switched off (a private window): the form just starts fresh
  }
};

/** The form as last edited on this machine, field by field (anything not a string is dropped). */
export function savedAgentForm(): Partial<KeptForm> {
  let raw: unknown;
  try {
    raw = JSON.parse(storage()?.getItem(FORM_KEY) ?? 'null');
  } catch {
    return {};
  }
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, string> = {};
  for (const k of KEPT) {
    const v = (raw as Record<string, unknown>)[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out as Partial<KeptForm>;
}

export function saveAgentForm(f: AgentForm): void {
  const kept = Object.fromEntries(KEPT.map((k) => [k, f[k]]));
  try {
    storage()?.setItem(FORM_KEY, JSON.stringify(kept));
  } catch {
    // Full or switched off: the form is still there until the page goes.
  }
}
