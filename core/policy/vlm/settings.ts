import { z } from 'zod';
import { chatEndpointFields } from '../../llm/chat-client.js';
import { CoordinateSpace } from './geometry.js';
import { VlmFormatId } from './format.js';
import { VlmServer } from './server.js';
import { PromptTemplateRef, TEMPLATE_PACKAGES } from './prompt-template.js';
import { applyPreset, VLM_PRESET_IDS, VlmPresetId } from './presets.js';

/**
 * The VLM policy's settings: one zod schema, the single source for the CLI flags, the endpoint
 * profiles file and validation. The API key is never persisted with these settings: a profile keeps
 * `apiKeyEnv` (a variable name) or a key in the secret store (profiles.ts); `apiKey` exists only in
 * memory, for one process.
 */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const VlmEndpointSettings = z.strictObject({
  ...chatEndpointFields({ timeoutMs: 60_000, retries: 2, backoffMs: 1000 }),
  apiKey: z.string().min(1).optional().describe('Bearer token (memory only; never written to the store, the profiles file or logs)'),
  apiKeyEnv: envName.optional().describe('Read the bearer token from this environment variable'),
  maxBackoffMs: z.int().min(0).max(600_000).default(15_000).describe('Cap on one retry delay (default 15000 ms)'),
  maxConcurrency: z.int().min(1).max(256).default(4).describe('Requests in flight to this endpoint at once, shared by every policy in the process (default 4)'),
  server: VlmServer.default('vllm').describe("The server, for the field that carries minPixels/maxPixels: vllm (mm_processor_kwargs), transformers (transformers serve: chat_template_kwargs), other (none)"),
}).refine((e) => !(e.apiKey && e.apiKeyEnv), { message: 'give apiKey or apiKeyEnv, not both' });
export type VlmEndpointSettings = z.infer<typeof VlmEndpointSettings>;

/**
 * Whose request the policy sends: `workbench`, the format's own prompt and options (historyStyle, …); or an
 * official agent's, built as its authors' code builds it (agents/): UI-TARS-1.5's and UI-TARS's OSWorld agents, the
 * Qwen2.5-VL cookbook's mobile agent, MobileRL's evaluation, AndroidWorld's T3A and M3A. A preset sets it.
 */
export const VLM_AGENTS = ['workbench', 'ui-tars-1.5', 'ui-tars-v1', 'qwen-cookbook', 'mobilerl', 'androidworld-t3a', 'androidworld-m3a'] as const;
export const VlmAgentId = z.enum(VLM_AGENTS);
export type VlmAgentId = z.infer<typeof VlmAgentId>;

/** The format each official agent's model answers in. */
const AGENT_FORMATS: Record<Exclude<VlmAgentId, 'workbench'>, VlmFormatId> = {
  'ui-tars-1.5': 'ui-tars', 'ui-tars-v1': 'ui-tars', 'qwen-cookbook': 'qwen-mobile-use', mobilerl: 'mobilerl',
  'androidworld-t3a': 'androidworld', 'androidworld-m3a': 'androidworld',
};

/**
 * A tool read from an official file (the Qwen cookbook's mobile_use): its description, with sentinels where the
 * screen's width and height go (agents/qwen-cookbook.ts FRAME_WIDTH, FRAME_HEIGHT), and its parameters as Python's
 * json.dumps wrote them.
 */
export const LoadedTool = z.strictObject({ name: z.string().min(1), description: z.string(), parametersJson: z.string().min(2) });
export type LoadedTool = z.infer<typeof LoadedTool>;

/**
 * What AndroidWorld's T3A and M3A read from their own file (t3a.py, m3a.py; agents/androidworld.ts): the action and
 * summary prompt templates (Python str.format), the history's text before any step, the elements' text when a screen
 * has none, the history line of a step whose action was chosen and done (fields {action} and {summary}), and the fixed
 * history lines of a step whose reply had no Reason/Action, whose action did not read, whose index was past the
 * elements, or whose action failed (T3A appends the action type).
 */
export const AndroidWorldTexts = z.strictObject({
  action: z.string().min(1), summary: z.string().min(1), noHistory: z.string(), notAvailable: z.string(), selected: z.string().min(1),
  notFormatted: z.string(), notParsed: z.string(), indexOutOfRange: z.string(), executeFailed: z.string(),
});
export type AndroidWorldTexts = z.infer<typeof AndroidWorldTexts>;

const Settings = z.strictObject({
  preset: VlmPresetId.optional().describe(`A public checkpoint asked exactly as its authors' agent asks it: ${VLM_PRESET_IDS.join(' | ')}; fills every setting not given (docs/policy-vlm.md "Presets")`),
  agent: VlmAgentId.default('workbench').describe("Whose request is sent: workbench (the format's prompt and the options below) or an official agent's (set by a preset)"),
  endpoint: VlmEndpointSettings,
  format: VlmFormatId.default('androidworld').describe('Action format: androidworld | ui-tars | mobilerl | qwen-mobile-use'),
  coordinates: CoordinateSpace.optional().describe("Where the model's coordinates live (default: the format's own; see docs/policy-vlm.md)"),
  temperature: z.number().min(0).max(2).default(0).describe('Sampling temperature (default 0: greedy, for evaluation)'),
  maxTokens: z.int().min(1).max(32_768).default(512).describe('max_tokens of each completion (default 512)'),
  screenshot: z.boolean().default(true).describe('Send the screenshot (PNG data URL)'),
  accessibilityTree: z.boolean().optional().describe("Send the screen's elements as text (default: the format's own: on for androidworld and mobilerl)"),
  historySteps: z.int().min(0).max(50).default(4).describe('How many earlier steps the prompt shows (default 4)'),
  historyStyle: z.enum(['summary', 'turns']).default('summary').describe("'summary': one line per earlier step in the user turn; 'turns': earlier completions as assistant turns (UI-TARS, Qwen agents)"),
  historyImages: z.int().min(0).max(10).default(0).describe("With historyStyle 'turns': how many of the latest earlier turns resend their screenshot (UI-TARS uses up to 4; default 0)"),
  minPixels: z.int().min(1).optional().describe("smart-resize lower bound in pixels, as the server's processor has it (default 3136, Qwen2.5-VL); sent with every request and every vlm job, so server and trainer resize the same"),
  maxPixels: z.int().min(1).optional().describe("smart-resize upper bound in pixels, as the server's processor has it (default 12845056, Qwen2.5-VL); sent with every request and every vlm job"),
  extraBody: z.record(z.string(), z.unknown()).optional().describe('Extra request fields for the server (e.g. {"top_p": 0.9}, vLLM\'s {"repetition_penalty": 1.05})'),
  name: z.string().min(1).optional().describe('Policy name recorded with episodes (default vlm:<model>)'),
  promptTemplate: PromptTemplateRef.optional().describe("The prompt the model was trained on, loaded at run time: {package: 'ui-tars', name: 'MOBILE_USE_DOUBAO'} from the installed Python package, or {file: PATH} (placeholders: docs/policy-vlm.md); default: the format's own prompt"),
  promptLanguage: z.string().min(1).default('English').describe('Fills the template\'s {language} (default English)'),
  promptTemplateText: z.string().min(1).optional().describe('The loaded template: filled from promptTemplate when a run starts (withPromptTemplate), never kept in the profiles file'),
  promptTool: LoadedTool.optional().describe("The loaded tool (agent qwen-cookbook): filled from promptTemplate when a run starts, never kept in the profiles file"),
  promptTexts: AndroidWorldTexts.optional().describe("The loaded prompts (agents androidworld-t3a, androidworld-m3a): filled from promptTemplate when a run starts, never kept in the profiles file"),
});

// The cast below: the preprocess (applyPreset) takes the object's own input, so callers keep the object's types.
export const VlmPolicySettings = z.preprocess(applyPreset, Settings.refine((s) => s.minPixels === undefined || s.maxPixels === undefined || s.minPixels <= s.maxPixels, {
  message: 'minPixels must not be more than maxPixels', path: ['maxPixels'],
}).refine((s) => !s.promptTemplate || 'file' in s.promptTemplate || TEMPLATE_PACKAGES[s.promptTemplate.package].format === s.format, {
  message: "the template's model answers in another format: set format to the package's (ui-tars)", path: ['promptTemplate'],
}).refine((s) => s.agent === 'workbench' || AGENT_FORMATS[s.agent] === s.format, {
  message: "the agent's model answers in another format: leave format to the preset", path: ['format'],
}).refine((s) => s.agent === 'workbench' || s.agent === 'ui-tars-1.5' || s.promptTemplate !== undefined, {
  // The official prompt of these agents ships in no package: the user points at the file (the preset says which).
  message: 'this agent reads its prompt from a file of its official code: give promptTemplate (--prompt-template FILE)', path: ['promptTemplate'],
})) as unknown as typeof Settings;
export type VlmPolicySettings = z.infer<typeof Settings>;
export type VlmPolicySettingsInput = z.input<typeof Settings>;
