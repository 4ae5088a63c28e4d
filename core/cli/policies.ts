import { resolve } from 'node:path';
import { z } from 'zod';
import { COORDINATE_SPACES } from '../policy/vlm/geometry.js';
import { VLM_FORMAT_IDS } from '../policy/vlm/format.js';
import { EndpointProfiles } from '../policy/vlm/profiles.js';
import { VLM_SERVERS } from '../policy/vlm/server.js';
import { VLM_PRESET_IDS } from '../policy/vlm/presets.js';
import { VlmPolicySettings, type VlmPolicySettingsInput } from '../policy/vlm/settings.js';
import { PromptTemplateError, templateRefFromArg } from '../policy/vlm/prompt-template.js';
import { withPromptTemplate } from '../workbench/prompt-templates.js';
import type { PolicyName } from '../policy/registry.js';
import { OnnxPolicyDimsError, OnnxPolicyFileError, OnnxPolicyModel, OnnxRuntimeUnavailableError } from '../policy/onnx/index.js';
import { UsageError, type Options } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { formatIssues } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/** Policies a suite can run unattended (in worker threads too); each is a registry kind (core/policy/registry.ts). */
export const SUITE_POLICIES = ['oracle', 'random'] as const satisfies readonly PolicyName[];
export const SuitePolicy = z.enum(SUITE_POLICIES);
export type SuitePolicy = z.infer<typeof SuitePolicy>;

/**
 * Policies `awb run` offers: the suite ones, a VLM endpoint, a person at the terminal, a recorded episode replayed, or a
 * VLM's recorded replies re-executed through its format's parser.
 */
export const RunPolicy = z.enum([...SUITE_POLICIES, 'vlm', 'human', 'replay', 'vlm-replay']);
export type RunPolicy = z.infer<typeof RunPolicy>;

/** `awb run --policy`: a named policy, or `onnx:FILE` (an exported builtin policy scored in ONNX Runtime). */
export const RunPolicyArg = z.union([RunPolicy, z.templateLiteral(['onnx:', z.string().min(1)])], {
  error: `expected ${RunPolicy.options.join(', ')} or onnx:FILE`,
});

export function isOnnxPolicyArg(p: string): p is `onnx:${string}` {
  return p.startsWith('onnx:');
}

/** Loads `onnx:FILE` (or FILE.onnx) for a command; a bad model file is a usage error naming it. */
export async function loadOnnxPolicyArg(arg: string): Promise<OnnxPolicyModel> {
  try {
    return await OnnxPolicyModel.load(resolve(onnxPolicyPath(arg) ?? arg));
  } catch (e) {
    if (e instanceof OnnxPolicyFileError || e instanceof OnnxPolicyDimsError || e instanceof OnnxRuntimeUnavailableError) throw new UsageError(e.message, { cause: e });
    throw e;
  }
}

/** `--policy onnx:FILE`, or a path ending in .onnx: a builtin policy scored in ONNX Runtime (core/policy/onnx). The path, else null. */
export function onnxPolicyPath(arg: string): string | null {
  if (arg.startsWith('onnx:')) return arg.slice('onnx:'.length);
  return /\.onnx$/i.test(arg) ? arg : null;
}

// --- the VLM policy's flags (awb run / awb suite run --policy vlm) ---

/** parseArgs options of the VLM flags, spread into a command's own. */
export const vlmFlagOptions: Options = {
  endpoint: { type: 'string' }, 'base-url': { type: 'string' }, model: { type: 'string' }, format: { type: 'string' },
  coordinates: { type: 'string' }, 'api-key-env': { type: 'string' }, temperature: { type: 'string' }, 'max-tokens': { type: 'string' },
  'timeout-ms': { type: 'string' }, retries: { type: 'string' }, 'max-concurrency': { type: 'string' }, history: { type: 'string' },
  tree: { type: 'string' }, 'history-style': { type: 'string' }, 'history-images': { type: 'string' },
  server: { type: 'string' }, 'min-pixels': { type: 'string' }, 'max-pixels': { type: 'string' },
  'prompt-template': { type: 'string' }, 'prompt-language': { type: 'string' }, preset: { type: 'string' },
};

const num = (flag: string) => z.string().transform((s, ctx) => {
  const n = Number(s);
  if (s.trim() === '' || !Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: `${flag} must be a number, got ${JSON.stringify(s)}` });
    return z.NEVER;
  }
  return n;
});

/** The VLM flags' values (zod fields spread into a command's Flags schema). */
export const VlmFlagValues = {
  endpoint: z.string().min(1).optional(),
  'base-url': z.string().optional(),
  model: z.string().optional(),
  format: z.enum(VLM_FORMAT_IDS).optional(),
  coordinates: z.enum(COORDINATE_SPACES).optional(),
  'api-key-env': z.string().optional(),
  temperature: num('--temperature').optional(),
  'max-tokens': num('--max-tokens').optional(),
  'timeout-ms': num('--timeout-ms').optional(),
  retries: num('--retries').optional(),
  'max-concurrency': num('--max-concurrency').optional(),
  history: num('--history').optional(),
  tree: z.enum(['on', 'off']).optional(),
  'history-style': z.enum(['summary', 'turns']).optional(),
  'history-images': num('--history-images').optional(),
  server: z.enum(VLM_SERVERS).optional(),
  'min-pixels': num('--min-pixels').optional(),
  'max-pixels': num('--max-pixels').optional(),
  'prompt-template': z.string().min(1).optional(),
  'prompt-language': z.string().min(1).optional(),
  preset: z.enum(VLM_PRESET_IDS, { error: (i) => `--preset must be one of ${VLM_PRESET_IDS.join(', ')}, got ${JSON.stringify(i.input)}` }).optional(),
};
type VlmFlags = { [K in keyof typeof VlmFlagValues]?: z.infer<(typeof VlmFlagValues)[K]> };

export const VLM_USAGE = '--policy vlm (--endpoint NAME | --base-url URL (--model M | --preset P)) [--preset ' + VLM_PRESET_IDS.join('|') + '] [--format androidworld|ui-tars|mobilerl|qwen-mobile-use] [--coordinates screen|image|relative-1000|relative-999|smart-resize]\n'
  + '              [--api-key-env VAR] [--temperature T] [--max-tokens N] [--timeout-ms MS] [--retries N] [--max-concurrency N] [--history K] [--history-style summary|turns] [--history-images N] [--tree on|off]\n'
  + '              [--server vllm|transformers|other] [--min-pixels N] [--max-pixels N] [--prompt-template ui-tars:NAME|FILE] [--prompt-language L]';

const VLM_FLAG_NAMES = Object.keys(VlmFlagValues);
/** The VLM flags that say how replies are read (the rest are about an endpoint and its prompt): --policy vlm-replay takes these. */
export const VLM_REPLAY_FLAG_NAMES = ['format', 'coordinates', 'min-pixels', 'max-pixels'] as const;

/** Refuses VLM flags given without --policy vlm (they would be silently ignored); vlm-replay takes the parsing ones. */
export function refuseStrayVlmFlags(values: Record<string, unknown>, policy: string | undefined): void {
  if (policy === 'vlm') return;
  const allowed: readonly string[] = policy === 'vlm-replay' ? VLM_REPLAY_FLAG_NAMES : [];
  const given = VLM_FLAG_NAMES.filter((k) => values[k] !== undefined && !allowed.includes(k));
  if (given.length) throw new UsageError(`${given.map((k) => `--${k}`).join(', ')} ${given.length === 1 ? 'is' : 'are'} for --policy vlm`);
}

/**
 * The VLM policy's settings from the flags: a named endpoint profile (<data folder>/endpoints.json,
 * its key from the secret store or its apiKeyEnv) with any flags given on top, or an ad-hoc endpoint
 * from --base-url and --model. Validated here, so a bad flag is a usage error before any episode.
 */
export function vlmSettingsFromFlags(v: VlmFlags, profiles: EndpointProfiles = EndpointProfiles.inDataDir(dataDir())): VlmPolicySettings {
  let base: VlmPolicySettingsInput;
  if (v.endpoint) {
    base = profiles.resolve(v.endpoint);
  } else {
    if (!v['base-url'] || (!v.model && !v.preset)) throw new UsageError(`--policy vlm needs --endpoint NAME (awb endpoints list) or --base-url with --model (or --preset)\n  ${VLM_USAGE}`);
    base = { endpoint: { baseUrl: v['base-url'], ...(v.model ? { model: v.model } : {}) } } as VlmPolicySettingsInput;
  }
  const endpoint: Record<string, unknown> = { ...base.endpoint };
  if (v['base-url']) endpoint.baseUrl = v['base-url'];
  if (v.model) endpoint.model = v.model;
  if (v['api-key-env']) {
    endpoint.apiKeyEnv = v['api-key-env'];
    delete endpoint.apiKey;
  }
  if (v['timeout-ms'] !== undefined) endpoint.timeoutMs = v['timeout-ms'];
  if (v.retries !== undefined) endpoint.retries = v.retries;
  if (v['max-concurrency'] !== undefined) endpoint.maxConcurrency = v['max-concurrency'];
  if (v.server) endpoint.server = v.server;
  const merged: Record<string, unknown> = { ...base, endpoint };
  if (v.preset) merged.preset = v.preset;
  if (v.format) merged.format = v.format;
  if (v.coordinates) merged.coordinates = v.coordinates;
  if (v.temperature !== undefined) merged.temperature = v.temperature;
  if (v['max-tokens'] !== undefined) merged.maxTokens = v['max-tokens'];
  if (v.history !== undefined) merged.historySteps = v.history;
  if (v.tree) merged.accessibilityTree = v.tree === 'on';
  if (v['history-style']) merged.historyStyle = v['history-style'];
  if (v['history-images'] !== undefined) merged.historyImages = v['history-images'];
  if (v['min-pixels'] !== undefined) merged.minPixels = v['min-pixels'];
  if (v['max-pixels'] !== undefined) merged.maxPixels = v['max-pixels'];
  if (v['prompt-template']) {
    merged.promptTemplate = templateRefFromArg(v['prompt-template'], (p) => resolve(p));
    delete merged.promptTemplateText;
  }
  if (v['prompt-language']) merged.promptLanguage = v['prompt-language'];
  const r = VlmPolicySettings.safeParse(merged, PLAIN_ISSUES);
  if (!r.success) throw new UsageError(`VLM settings: ${formatIssues(r.error.issues, { root: '(settings)' })}`);
  return loadedTemplate(r.data);
}

/** The settings with their prompt template loaded (core/workbench/prompt-templates.ts); one that does not load is a usage error. */
export function loadedTemplate(s: VlmPolicySettings): VlmPolicySettings {
  try {
    return withPromptTemplate(s);
  } catch (e) {
    if (e instanceof PromptTemplateError) throw new UsageError(e.message, { cause: e });
    throw e;
  }
}

/** What a run records of the VLM settings: everything but the key (the store never holds it). */
export function storableVlmSettings(s: VlmPolicySettings, profile?: string): Record<string, unknown> {
  const { apiKey: _key, ...endpoint } = s.endpoint;
  return { ...s, endpoint, ...(profile ? { profile } : {}) };
}

/**
 * The settings a resumed suite run recorded (storableVlmSettings), with the key found again: from
 * its apiKeyEnv, or from the secret store of the profile it was started with.
 */
export function vlmSettingsForResume(stored: Record<string, unknown>, profiles: EndpointProfiles = EndpointProfiles.inDataDir(dataDir())): VlmPolicySettings {
  const { profile, ...rest } = stored;
  const r = VlmPolicySettings.safeParse(rest, PLAIN_ISSUES);
  if (!r.success) throw new UsageError(`The run's recorded VLM settings do not read: ${formatIssues(r.error.issues)}`);
  if (typeof profile === 'string' && !r.data.endpoint.apiKeyEnv) {
    const key = profiles.key(profile);
    if (key) return { ...r.data, endpoint: { ...r.data.endpoint, apiKey: key } };
  }
  return r.data;
}
