import { assertNever } from '../../../util/errors.js';
import type { VlmAgentId, VlmPolicySettings } from '../settings.js';
import { androidWorldRequest, type AwVariant } from './androidworld.js';
import { mobileRlRequest } from './mobilerl.js';
import { qwenCookbookRequest } from './qwen-cookbook.js';
import type { AgentInput, AgentRequest } from './types.js';
import { uiTarsRequest } from './ui-tars.js';

export { sentImage, agentImageSize } from './images.js';
export { FRAME_HEIGHT, FRAME_WIDTH } from './qwen-cookbook.js';
export { androidWorldSelectedLine, androidWorldStepOutcome, androidWorldSummaryRequest, type AwVariant } from './androidworld.js';
export type { AgentInput, AgentRequest, SentImage } from './types.js';

/** Whether the agent resizes screenshots itself before sending them (the UI-TARS agents do). */
export function agentResizes(agent: VlmAgentId): boolean {
  return agent === 'ui-tars-1.5' || agent === 'ui-tars-v1';
}

/** AndroidWorld's agents (which ask twice per step: an action, then a summary of it once the next screen is there). */
export function androidWorldVariant(agent: VlmAgentId): AwVariant | undefined {
  return agent === 'androidworld-t3a' ? 't3a' : agent === 'androidworld-m3a' ? 'm3a' : undefined;
}

/** The request an official agent builds at this step (agent is not 'workbench': prompt.ts builds that one). */
export async function agentRequest(agent: Exclude<VlmAgentId, 'workbench'>, input: AgentInput): Promise<AgentRequest> {
  switch (agent) {
    case 'ui-tars-1.5':
    case 'ui-tars-v1':
      return uiTarsRequest(input, agent);
    case 'qwen-cookbook':
      return qwenCookbookRequest(input);
    case 'mobilerl':
      return mobileRlRequest(input);
    case 'androidworld-t3a':
      return androidWorldRequest(input, 't3a');
    case 'androidworld-m3a':
      return androidWorldRequest(input, 'm3a');
    default:
      return assertNever(agent, 'VLM agent');
  }
}

/** The most images one request carries (a server's per-prompt image limit must allow it: vLLM's --limit-mm-per-prompt). */
export function imagesPerRequest(s: Pick<VlmPolicySettings, 'agent' | 'screenshot' | 'historyStyle' | 'historyImages'>): number {
  if (!s.screenshot) return 0;
  switch (s.agent) {
    case 'workbench':
      return s.historyStyle === 'turns' ? 1 + s.historyImages : 1;
    case 'ui-tars-1.5':
    case 'ui-tars-v1':
    case 'mobilerl':
      return 1 + s.historyImages;
    case 'qwen-cookbook':
      return 1;
    case 'androidworld-t3a':
      return 0;
    case 'androidworld-m3a':
      // The screenshot and its set-of-marks copy; the summary call sends two too.
      return 2;
    default:
      return assertNever(s.agent, 'VLM agent');
  }
}
