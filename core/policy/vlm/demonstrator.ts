import { parseAction, type Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyContext } from '../../episode/policy.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { Completion } from './client.js';
import type { GeometryContext } from './geometry.js';
import { VlmPolicy } from './policy.js';
import type { ChatMessage } from './prompt.js';
import type { VlmPolicySettingsInput } from './settings.js';

/** The teacher had no action for a step (a replay that ran out): a demonstration cannot go on. */
export class DemonstrationEndedError extends Error {
  override name = 'DemonstrationEndedError';
  constructor(readonly teacher: string, readonly step: number) {
    super(`Step ${step}: the teacher policy ${teacher} returned no action`);
  }
}

/** The summary reply a demonstrator gives an AndroidWorld agent's summary call. */
export const DEMONSTRATION_SUMMARY = 'The teacher chose this action; it was carried out.';

/** Where a demonstrator's requests would go: nowhere (the teacher answers them). */
const NO_ENDPOINT = 'http://teacher.invalid/v1';

/**
 * A VLM policy whose model is a teacher policy (the oracle): each step is prompted exactly as
 * VlmPolicy prompts its endpoint (same messages, same onRequest hook), the completion is the
 * teacher's action written in the format (`render`, what a perfect model of the format would say),
 * and that completion is parsed and acted on as a model's would be. The episode is recorded as a
 * VlmPolicy episode (`thought` = the completion): supervised demonstrations for a VLM.
 */
export class VlmDemonstrator extends VlmPolicy {
  constructor(readonly teacher: Policy, settings: Omit<VlmPolicySettingsInput, 'endpoint'>, deps: ConstructorParameters<typeof VlmPolicy>[1] = {}) {
    super({ name: `vlm-demo:${teacher.name}`, ...settings, endpoint: { baseUrl: NO_ENDPOINT, model: teacher.name } }, deps);
  }

  /** A teacher action held for the next step (the second half of a tap-then-type). */
  private pending: Action | null = null;
  private thought: string | undefined;

  override async start(ctx: { instruction: string; instance?: TaskInstance }): Promise<void> {
    super.start(ctx);
    this.pending = null;
    await this.teacher.start?.(ctx);
  }

  protected override async complete(_messages: ChatMessage[], obs: Observation, ctx: PolicyContext, geometry: GeometryContext): Promise<Completion> {
    const t0 = performance.now();
    const action = this.pending ?? (await this.teacherAction(obs, ctx));
    this.pending = null;
    const say = (a: Action, thought?: string) => this.format.render(a, { ...geometry, obs, thought });
    // Typing into an element by index, in a format whose "type" has no index (it types into the focused field):
    // tap the field first, as a model of the format must, and type on the next step.
    if (action.action_type === 'input_text' && action.index !== undefined && !obs.elements[action.index]?.node.focused
      && !('index' in this.format.parse(say(action), { ...geometry, obs }).action)) {
      this.pending = { ...action };
      return { text: say({ action_type: 'click', index: action.index }, this.thought), attempts: 1, latencyMs: performance.now() - t0, queuedMs: 0 };
    }
    return { text: say(action, this.thought), attempts: 1, latencyMs: performance.now() - t0, queuedMs: 0 };
  }

  /** An AndroidWorld agent's summary of the step before: a plain line of the demonstrator's (no model wrote one). */
  protected override completeSummary(_messages: ChatMessage[]): Promise<Completion> {
    return Promise.resolve({ text: DEMONSTRATION_SUMMARY, attempts: 1, latencyMs: 0, queuedMs: 0 });
  }

  private async teacherAction(obs: Observation, ctx: PolicyContext): Promise<Action> {
    const decision = await this.teacher.act(obs, ctx);
    if (decision === null) throw new DemonstrationEndedError(this.teacher.name, ctx.step);
    this.thought = decision.thought;
    return parseAction(decision.action);
  }
}
