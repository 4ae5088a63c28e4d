import { join } from 'node:path';
import { openSimDroid } from '../devices/provider.js';
import { instantiate } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { EndpointProfiles, type EndpointProfile } from '../policy/vlm/profiles.js';
import { isSettling, type SecretStore } from '../util/secret-store.js';
import { probeEndpoint } from '../policy/vlm/probe.js';
import { withPromptTemplate } from './prompt-templates.js';
import { VlmPolicySettings } from '../policy/vlm/settings.js';
import { WorkbenchError } from '../util/errors.js';
import { redact } from '../llm/redact.js';
import type { CoordinateSpace, EndpointInfo, EndpointSave, EndpointTestResult, VlmFormatId, VlmPresetInfo } from '../api/endpoint-types.js';
import { VLM_PRESET_IDS, VLM_PRESETS } from '../policy/vlm/presets.js';
import { formatIssues, issuePath } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * The workbench's VLM endpoint profiles (docs/policy-vlm.md "Endpoint profiles", docs/ui.md
 * "Endpoints"): the Settings view lists, saves, removes and tests them. Profiles live in
 * `<data folder>/endpoints.json` (read per call: the data folder can move); keys live in the secret
 * store the workbench was given (the app: Electron safeStorage through its main process; the CLI
 * and `awb serve`: `<data folder>/secrets.json`, mode 0600). No key ever leaves through this API.
 */

/** Settings that do not validate, by field path (as ApiInputError's issues, so the form marks each field). */
export class EndpointSettingsError extends WorkbenchError {
  override name = 'EndpointSettingsError';
  constructor(readonly profile: string, readonly issues: Array<{ path: string; message: string }>) {
    super(`Endpoint ${JSON.stringify(profile)}: ${formatIssues(issues, { root: '(settings)' })}`);
  }
}

/** The value at a dotted path of the input, for an issue's message (the key is never in `settings`: refused first). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The presets as the endpoint form offers them: each with the fields the form shows, as the preset (or the schema's default) sets them. */
export function vlmPresetInfos(): VlmPresetInfo[] {
  return VLM_PRESET_IDS.map((id) => {
    const p = VLM_PRESETS[id];
    const s = VlmPolicySettings.parse({ preset: id, endpoint: { baseUrl: 'http://preset.invalid/v1' }, ...(p.promptFile ? { promptTemplate: { file: 'x' } } : {}) });
    return {
      id, model: p.model, follows: p.follows, promptFile: p.promptFile ?? null, format: s.format as VlmFormatId, coordinates: (s.coordinates ?? null) as CoordinateSpace | null,
      temperature: s.temperature, maxTokens: s.maxTokens, historySteps: s.historySteps, fills: Object.keys(p.settings),
    };
  });
}

export function endpointInfo(p: EndpointProfile): EndpointInfo {
  const { apiKey: _never, ...endpoint } = p.settings.endpoint;
  return {
    name: p.name, baseUrl: endpoint.baseUrl, model: endpoint.model, format: p.settings.format, coordinates: p.settings.coordinates ?? null,
    hasKey: p.hasSecret, apiKeyEnv: endpoint.apiKeyEnv ?? null, settings: { ...p.settings, endpoint },
  };
}

/** Checks the settings like the profiles file will, with each problem at its field and the bad value in the message. */
function checkSettings(name: string, settings: unknown, apiKey: string | null | undefined): void {
  const endpoint = valueAt(settings, ['endpoint']);
  if (typeof endpoint === 'object' && endpoint !== null && 'apiKey' in endpoint) {
    // Not echoed: it is a key typed into the wrong place.
    throw new EndpointSettingsError(name, [{ path: 'endpoint.apiKey', message: 'a profile never stores the key in its settings: send it as apiKey' }]);
  }
  const r = VlmPolicySettings.safeParse(settings, PLAIN_ISSUES);
  if (!r.success) {
    throw new EndpointSettingsError(name, r.error.issues.map((i) => {
      const v = valueAt(settings, i.path);
      return { path: issuePath(i.path), message: v === undefined ? i.message : `${i.message} (got ${shown(v)})` };
    }));
  }
  if (typeof apiKey === 'string' && r.data.endpoint.apiKeyEnv) {
    throw new EndpointSettingsError(name, [{ path: 'apiKey', message: `this profile reads its key from $${r.data.endpoint.apiKeyEnv}: clear endpoint.apiKeyEnv to store a key` }]);
  }
}

const COMPLETION_CHARS = 2000;

export class EndpointsHost {
  constructor(private readonly deps: { dataDir(): string; secrets?: SecretStore }) {}

  profiles(): EndpointProfiles {
    const dir = this.deps.dataDir();
    return this.deps.secrets ? new EndpointProfiles(join(dir, 'endpoints.json'), this.deps.secrets) : EndpointProfiles.inDataDir(dir);
  }

  private async settled(): Promise<void> {
    const s = this.profiles().secrets;
    if (isSettling(s)) await s.settled();
  }

  list(): EndpointInfo[] {
    return this.profiles().list().map(endpointInfo);
  }

  async save({ name, settings, apiKey }: EndpointSave): Promise<EndpointInfo[]> {
    checkSettings(name, settings, apiKey);
    const profiles = this.profiles();
    const s = settings as { endpoint: Record<string, unknown> };
    // The profiles' save sends a key in endpoint.apiKey to the secret store before it writes the file.
    profiles.save(name, { ...s, endpoint: { ...s.endpoint, ...(typeof apiKey === 'string' ? { apiKey } : {}) } } as Parameters<EndpointProfiles['save']>[1]);
    if (apiKey === null) profiles.forgetKey(name);
    await this.settled();
    return this.list();
  }

  async remove(name: string): Promise<EndpointInfo[]> {
    this.profiles().remove(name);
    await this.settled();
    return this.list();
  }

  /**
   * What `awb endpoints test` does: the first screen of a task on a fresh SimDroid of its own (no
   * device of the workbench is touched), one request with the profile's prompt and format. An
   * endpoint that gives no usable answer is a result (ok: false) naming the error, not a failure
   * of the call; a profile that does not exist is.
   */
  async test(name: string, templateId = 'ClockStopwatchRun', seed = 0): Promise<EndpointTestResult> {
    const settings = withPromptTemplate(this.profiles().resolve(name));
    const key = settings.endpoint.apiKey ?? (settings.endpoint.apiKeyEnv ? process.env[settings.endpoint.apiKeyEnv] : undefined);
    const instance = instantiate(getTemplate(templateId), seed);
    const device = openSimDroid({ serial: 'simdroid-endpoint-test' });
    let probe: Awaited<ReturnType<typeof probeEndpoint>>;
    try {
      probe = await probeEndpoint(settings, device, instance);
    } finally {
      device.close();
    }
    if (probe.error) {
      // The VLM client redacts its own errors already; this also covers any other error on the way (a key is never shown).
      const err = probe.error instanceof Error ? probe.error : new Error(String(probe.error));
      return { ok: false, endpoint: name, error: { name: err.name, message: redact(err.message, [key]) } };
    }
    const x = probe.exchange;
    if (!x) return { ok: false, endpoint: name, error: { name: 'EndpointTestError', message: 'the policy made no request' } };
    return {
      ok: true, endpoint: name, instruction: instance.instruction, latencyMs: Math.round(x.latencyMs), attempts: x.attempts,
      completion: redact(x.completion.slice(0, COMPLETION_CHARS), [key]),
      action: 'action' in x.outcome ? x.outcome.action : null,
      formatError: 'error' in x.outcome ? redact(x.outcome.error.message, [key]) : null,
    };
  }
}
