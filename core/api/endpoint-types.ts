import type { CoordinateSpace } from '../policy/vlm/geometry.js';
import type { VlmFormatId } from '../policy/vlm/format.js';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';
import type { VlmServer } from '../policy/vlm/server.js';
import type { VlmPresetId } from '../policy/vlm/presets.js';

/**
 * VLM endpoint profiles as the API and the Settings view see them (core/policy/vlm/profiles.ts does
 * the work; docs/policy-vlm.md "Endpoint profiles"). A key never appears here: a profile shows
 * whether one is kept for it (`hasKey`), and a key travels only into saveEndpoint.
 */
export type { CoordinateSpace, VlmFormatId, VlmPresetId, VlmServer };

/** A model preset (core/policy/vlm/presets.ts) as the endpoint form offers it. */
export interface VlmPresetInfo {
  id: VlmPresetId;
  /** The model the endpoint asks for unless the profile names one. */
  model: string;
  /** Whose code the request follows. */
  follows: string;
  /** What the profile's prompt file must be, when no installed package ships the prompt; null when none is needed. */
  promptFile: string | null;
  /** The settings the form shows, as the preset sets them. */
  format: VlmFormatId;
  coordinates: CoordinateSpace | null;
  temperature: number;
  maxTokens: number;
  historySteps: number;
  /** Every setting the preset fills (a profile switched to another preset drops them). */
  fills: string[];
}

/** A profile's stored settings: the VLM policy settings without `endpoint.apiKey`. */
export type EndpointSettings = Omit<VlmPolicySettings, 'endpoint'> & { endpoint: Omit<VlmPolicySettings['endpoint'], 'apiKey'> };

export interface EndpointInfo {
  name: string;
  baseUrl: string;
  model: string;
  format: VlmFormatId;
  /** null: the format's own coordinate space. */
  coordinates: CoordinateSpace | null;
  /** A key is kept for this profile in the secret store (the app: safeStorage; the CLI and `awb serve`: secrets.json). */
  hasKey: boolean;
  /** The key is read from this environment variable of the workbench's process instead (then a stored key is not used). */
  apiKeyEnv: string | null;
  /** Everything stored, for an edit form (never the key). */
  settings: EndpointSettings;
}

export interface EndpointSave {
  name: string;
  /** VLM policy settings (core/policy/vlm/settings.ts), validated there; `endpoint.apiKey` is refused here: give `apiKey`. */
  settings: unknown;
  /** A new key to keep in the secret store; omitted: keep the stored one; null: forget it. */
  apiKey?: string | null;
}

/** What testEndpoint saw: one real request on the first screen of a task, or why there was no usable answer. */
export type EndpointTestResult =
  | {
    ok: true;
    endpoint: string;
    instruction: string;
    latencyMs: number;
    attempts: number;
    /** The model's text (cut at 2000 characters). */
    completion: string;
    /** The action it parsed to, or null with the format error (the model answered, not in the format). */
    action: unknown;
    formatError: string | null;
  }
  | {
    ok: false;
    endpoint: string;
    /** The error's name (VlmEndpointError, MissingApiKeyError, …) and its message, any key in it replaced by "[redacted]". */
    error: { name: string; message: string };
  };
