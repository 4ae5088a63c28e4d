import type { OnlineGrpoRunInfo, OnlineGrpoStart, OnlinePolicyKindName } from '../../../../core/api/job-types.js';
import type { PolicyInfo } from '../../../../core/api/types.js';

/**
 * The Online GRPO form's text fields and their conversion to the API's input (blank = the
 * workbench's default). Problems are returned by field, as the server's are (its issue paths:
 * `iterations`, `policy.init`, `config.epochs`…), so both show next to the same input.
 */
export interface OnlineFormState {
  trainer: string;
  kind: OnlinePolicyKindName;
  /** A registered checkpoint's file name, or '' for a fresh model. */
  init: string;
  endpoint: string;
  baseModel: string;
  split: string;
  part: string;
  limit: string;
  iterations: string;
  groupSize: string;
  temperature: string;
  maxSteps: string;
  seed: string;
  /** Trainer config overrides as a JSON object. */
  config: string;
  name: string;
}

export const ONLINE_FORM_INITIAL: OnlineFormState = {
  trainer: '', kind: 'builtin', init: '', endpoint: '', baseModel: '', split: 'unseen-instance', part: 'train', limit: '4',
  iterations: '2', groupSize: '4', temperature: '1', maxSteps: '20', seed: '0', config: '', name: '',
};

/** The field a server issue path belongs to (`policy.init` → init, `config.epochs` → config). */
export function fieldOf(path: string): keyof OnlineFormState | '' {
  if (path === 'policy.init') return 'init';
  if (path === 'policy.endpoint') return 'endpoint';
  if (path === 'policy.baseModel' || path === 'baseModel') return 'baseModel';
  if (path === 'historyImages') return 'endpoint';
  if (path === 'config' || path.startsWith('config.')) return 'config';
  return path in ONLINE_FORM_INITIAL && path !== 'kind' ? (path as keyof OnlineFormState) : '';
}

/** Server issues (path → message) regrouped by form field; unknown paths under ''. */
export function errorsByField(issues: Record<string, string>): Partial<Record<keyof OnlineFormState | '', string>> {
  const out: Partial<Record<keyof OnlineFormState | '', string>> = {};
  for (const [path, message] of Object.entries(issues)) {
    const f = fieldOf(path);
    const text = f === 'config' && path.startsWith('config.') ? `${path.slice(7)}: ${message}` : message;
    out[f] = out[f] ? `${out[f]}; ${text}` : text;
  }
  return out;
}

/** The checkpoints a loop can start from: the trainable policy choices (checkpoints, registered .json; an .onnx export cannot be trained). */
export function initChoices(policies: readonly PolicyInfo[]): string[] {
  return policies.filter((p) => p.trainable).map((p) => p.name);
}

const WHOLE = /^\d+$/;

export function onlineRequest(f: OnlineFormState): { request: OnlineGrpoStart } | { errors: Partial<Record<keyof OnlineFormState, string>> } {
  const errors: Partial<Record<keyof OnlineFormState, string>> = {};
  const int = (key: keyof OnlineFormState, min: number, optional: boolean): number | undefined => {
    const v = f[key].trim();
    if (!v && optional) return undefined;
    if (!WHOLE.test(v) || Number(v) < min) {
      errors[key] = `a whole number ≥ ${min}, got ${JSON.stringify(f[key])}`;
      return undefined;
    }
    return Number(v);
  };
  if (!f.trainer) errors.trainer = 'add a trainer first (Trainers, above)';
  const iterations = int('iterations', 1, false);
  const groupSize = int('groupSize', 2, true);
  const maxSteps = int('maxSteps', 1, true);
  const limit = int('limit', 1, true);
  const seed = int('seed', 0, true);
  let temperature: number | undefined;
  if (f.temperature.trim()) {
    temperature = Number(f.temperature);
    if (!(temperature > 0 && temperature <= 2)) errors.temperature = `in (0, 2], got ${JSON.stringify(f.temperature)}`;
  }
  let config: Record<string, unknown> | undefined;
  if (f.config.trim()) {
    try {
      const parsed: unknown = JSON.parse(f.config);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) errors.config = `a JSON object of trainer config fields, got ${f.config.trim().slice(0, 40)}`;
      else config = parsed as Record<string, unknown>;
    } catch (e) {
      errors.config = `not JSON: ${(e as Error).message}`;
    }
  }
  let policy: OnlineGrpoStart['policy'] | undefined;
  switch (f.kind) {
    case 'builtin':
      policy = { kind: 'builtin', ...(f.init ? { init: f.init } : {}) };
      break;
    case 'vlm':
      if (!f.endpoint) errors.endpoint = 'choose an endpoint profile (Settings → VLM endpoints)';
      if (!f.baseModel.trim()) errors.baseModel = 'the model the trainer loads and the endpoint serves (e.g. Qwen/Qwen2.5-VL-3B-Instruct)';
      policy = { kind: 'vlm', endpoint: f.endpoint, baseModel: f.baseModel.trim() };
      break;
  }
  if (Object.keys(errors).length || !policy || iterations === undefined) return { errors };
  return {
    request: {
      trainer: f.trainer, policy, iterations, split: f.split.trim() || 'unseen-instance', part: f.part.trim() || 'train',
      ...(limit !== undefined ? { limit } : {}), ...(groupSize !== undefined ? { groupSize } : {}), ...(temperature !== undefined ? { temperature } : {}),
      ...(maxSteps !== undefined ? { maxSteps } : {}), ...(seed !== undefined ? { seed } : {}), ...(config ? { config } : {}),
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
    },
  };
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** One iteration as the view lists it: success rate, reward, the job, the policy switched to. */
export function iterationLine(run: Pick<OnlineGrpoRunInfo, 'iterations'>, it: OnlineGrpoRunInfo['done'][number]): string {
  const head = `iteration ${it.iteration}/${run.iterations}: success ${pct(it.successRate)}, reward ${it.rewardMean.toFixed(3)}`;
  if (!it.job) return `${head}; nothing submitted (${it.groupsSkipped} group(s) without a reward spread), policy stays ${it.policy}`;
  return `${head}; job ${it.job.localId} (${it.job.remoteId}) → ${it.policy}`;
}
