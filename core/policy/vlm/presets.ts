import { z } from 'zod';
import { QWEN_MAX_PIXELS, QWEN_MIN_PIXELS } from './geometry.js';

/**
 * Model presets: the public checkpoints a researcher serves, each asked exactly as its authors' agent asks it (the
 * request builders in agents/, the official prompt loaded at run time: prompt-templates.ts). A preset fills every
 * setting the user did not give (settings.ts applies it before the schema's own defaults), so `--preset` plus an
 * endpoint reproduces the official request, and any flag given on top still wins. Where the official prompt ships
 * in no installed package, the preset names what the user must point at (`promptFile`), and a run without it is
 * refused with that message. docs/policy-vlm.md "Presets" says which official code each follows and how it differs.
 */
export const VLM_PRESET_IDS = ['ui-tars-1.5-7b', 'ui-tars-7b', 'qwen2.5-vl-3b', 'qwen2.5-vl-7b', 'mobilerl-9b', 'androidworld-t3a', 'androidworld-m3a'] as const;
export const VlmPresetId = z.enum(VLM_PRESET_IDS);
export type VlmPresetId = z.infer<typeof VlmPresetId>;

export interface VlmPreset {
  /** The checkpoint, as it is named on the Hugging Face hub, or the model the official run uses (a default for the endpoint's model). */
  model: string;
  /** Whose code the request follows. */
  follows: string;
  /** What the user must give with --prompt-template when no installed package ships the prompt. */
  promptFile?: string;
  /** The settings it fills (settings.ts VlmPolicySettings fields). */
  settings: Record<string, unknown>;
}

/** UI-TARS's OSWorld agents keep the last 5 screenshots (history_n 5): the current one and 4 earlier. */
const UI_TARS_HISTORY_IMAGES = 4;
/** Every earlier reply: the official agents keep them all (the schema's cap). */
const ALL_STEPS = 50;

export const VLM_PRESETS: Record<VlmPresetId, VlmPreset> = {
  'ui-tars-1.5-7b': {
    model: 'ByteDance-Seed/UI-TARS-1.5-7B',
    follows: "OSWorld's mm_agents/uitars15_v1.py (qwen25vl_normal), with the ui-tars package's MOBILE_USE_DOUBAO",
    settings: {
      format: 'ui-tars', agent: 'ui-tars-1.5', coordinates: 'smart-resize', minPixels: 100 * 28 * 28, maxPixels: 16384 * 28 * 28,
      promptTemplate: { package: 'ui-tars', name: 'MOBILE_USE_DOUBAO' }, promptLanguage: 'English',
      historySteps: ALL_STEPS, historyStyle: 'turns', historyImages: UI_TARS_HISTORY_IMAGES,
      temperature: 0, maxTokens: 1000, extraBody: { top_p: 0.9, frequency_penalty: 1 },
    },
  },
  'ui-tars-7b': {
    model: 'bytedance-research/UI-TARS-7B-DPO',
    follows: "OSWorld's mm_agents/uitars_agent.py (qwen2vl_user), with UI-TARS's mobile prompt (README_v1.md)",
    promptFile: "a text file with UI-TARS's mobile prompt (README_v1.md, the prompt for mobile; the instruction is appended, or fills {instruction})",
    settings: {
      format: 'ui-tars', agent: 'ui-tars-v1', coordinates: 'relative-1000', minPixels: QWEN_MIN_PIXELS, maxPixels: 2_116_800,
      promptLanguage: 'English', historySteps: ALL_STEPS, historyStyle: 'turns', historyImages: UI_TARS_HISTORY_IMAGES,
      temperature: 0, maxTokens: 1000, extraBody: { top_p: 0.9, frequency_penalty: 1 },
    },
  },
  'qwen2.5-vl-3b': {
    model: 'Qwen/Qwen2.5-VL-3B-Instruct',
    follows: "the Qwen2.5-VL cookbook's mobile agent (cookbooks/mobile_agent.ipynb, the API example)",
    promptFile: "the cookbook's cookbooks/utils/agent_function_call.py (its mobile_use tool is read from it)",
    settings: qwenCookbook(),
  },
  'qwen2.5-vl-7b': {
    model: 'Qwen/Qwen2.5-VL-7B-Instruct',
    follows: "the Qwen2.5-VL cookbook's mobile agent (cookbooks/mobile_agent.ipynb, the API example)",
    promptFile: "the cookbook's cookbooks/utils/agent_function_call.py (its mobile_use tool is read from it)",
    settings: qwenCookbook(),
  },
  'mobilerl-9b': {
    model: 'xuyifan/MobileRL-9B',
    follows: "MobileRL's AndroidWorld evaluation (scripts/configs/mobilerl-android-world.yaml: Multi_ScreenshotTask, RLAgent)",
    promptFile: "MobileRL's android_lab/templates/android_screenshot_template.py (AW_SYSTEM_PROMPT_THINKING is read from it)",
    settings: {
      format: 'mobilerl', agent: 'mobilerl', coordinates: 'relative-999', accessibilityTree: true,
      historySteps: ALL_STEPS, historyStyle: 'turns', historyImages: 1,
      temperature: 0, maxTokens: 4096, extraBody: { top_p: 0.95, seed: 34 },
    },
  },
  'androidworld-t3a': {
    model: 'gpt-4-turbo-2024-04-09',
    follows: "AndroidWorld's T3A (android_world/agents/t3a.py) with infer.Gpt4Wrapper, as its run.py runs t3a_gpt4: text only, two calls per step (action, summary)",
    promptFile: "AndroidWorld's android_world/agents/t3a.py, or the checkout's folder (its prompts and history lines are read from it)",
    settings: androidWorldAgent('androidworld-t3a'),
  },
  'androidworld-m3a': {
    model: 'gpt-4-turbo-2024-04-09',
    follows: "AndroidWorld's M3A (android_world/agents/m3a.py) with infer.Gpt4Wrapper, as its run.py runs m3a_gpt4v: the screenshot and its set-of-marks, two calls per step (action, summary)",
    promptFile: "AndroidWorld's android_world/agents/m3a.py, or the checkout's folder (its prompts and history lines are read from it)",
    settings: androidWorldAgent('androidworld-m3a'),
  },
};

/** AndroidWorld's agents with Gpt4Wrapper: greedy, 1000 tokens, the UI elements always, every earlier step's summary. */
function androidWorldAgent(agent: 'androidworld-t3a' | 'androidworld-m3a'): Record<string, unknown> {
  return {
    format: 'androidworld', agent, coordinates: 'screen', screenshot: agent === 'androidworld-m3a', accessibilityTree: true,
    historySteps: ALL_STEPS, historyStyle: 'summary', historyImages: 0, temperature: 0, maxTokens: 1000,
  };
}

function qwenCookbook(): Record<string, unknown> {
  return {
    format: 'qwen-mobile-use', agent: 'qwen-cookbook', coordinates: 'smart-resize', minPixels: QWEN_MIN_PIXELS, maxPixels: QWEN_MAX_PIXELS,
    historySteps: ALL_STEPS, historyStyle: 'summary', historyImages: 0, temperature: 0, maxTokens: 2048,
  };
}

/** The settings with the preset's values under the ones given (a value given wins; the endpoint's model defaults to the preset's). */
export function applyPreset(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const given = input as Record<string, unknown>;
  const id = VlmPresetId.safeParse(given.preset);
  if (!id.success) return input;
  const p = VLM_PRESETS[id.data];
  const endpoint = given.endpoint && typeof given.endpoint === 'object' ? given.endpoint as Record<string, unknown> : undefined;
  const out: Record<string, unknown> = { ...p.settings, ...given };
  if (endpoint && endpoint.model === undefined) out.endpoint = { ...endpoint, model: p.model };
  return out;
}
