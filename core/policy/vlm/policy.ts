import type { Observation } from '../../device/observation.js';
import type { ChatClientDeps } from '../../llm/chat-client.js';
import type { Policy, PolicyContext, PolicyDecision } from '../../episode/policy.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { VlmClient, type Completion } from './client.js';
import { VlmFormatError } from './errors.js';
import type { ActionFormat, ParseContext, PromptContext } from './format.js';
import { vlmFormat } from './formats/index.js';
import { modelFrame, pngSize, QWEN_MAX_PIXELS, QWEN_MIN_PIXELS, type GeometryContext } from './geometry.js';
import {
  agentImageSize, agentRequest, agentResizes, androidWorldSelectedLine, androidWorldStepOutcome, androidWorldSummaryRequest, androidWorldVariant,
  sentImage, type AgentInput, type SentImage,
} from './agents/index.js';
import { pastReply } from './agents/types.js';
import { buildMessages, recordedMessages, type ChatMessage, type ImageSource, type PastTurn, type RequestImageSources } from './prompt.js';
import { pixelFields } from './server.js';
import { VlmPolicySettings, type VlmPolicySettingsInput } from './settings.js';
import { PromptTemplateNotLoadedError, templateLabel, templatePlaceholders } from './prompt-template.js';
import type { TokenUsage } from '../../llm/chat-client.js';
import type { RecordedRequest, RecordedSummary } from '../../episode/record.js';

/** The screenshot setting is on but the runner observes without screenshots (`screenshots: 'none'`). */
export class VlmScreenshotMissingError extends Error {
  override name = 'VlmScreenshotMissingError';
  constructor(readonly step: number) {
    super(`Step ${step}: the VLM policy sends the screenshot, but the observation has none (run with screenshots half or full, or set screenshot: false)`);
  }
}

/** One request and what came of it (for trainers of the served model, and the endpoints view). */
export interface VlmExchange {
  step: number;
  completion: string;
  thought?: string;
  /** The parsed action, or the format error's name and message. */
  outcome: { action: unknown } | { error: { name: string; message: string } };
  attempts: number;
  latencyMs: number;
  queuedMs: number;
  /** The server's token counts, when it reported them. */
  usage?: TokenUsage;
  /** The server failed to hand the reply back and it was put together from what it sent (its failure, recover.ts). */
  recovered?: string;
}

/**
 * What a step records when the output is not an action of the format: an object the runner's
 * parseAction rejects, so the step is recorded as an unparseable ActionParseError (the format
 * reward's penalty, onMalformed's rule), its message leading with the format error, and `raw`
 * keeping the model's output.
 */
export function malformedDecision(e: VlmFormatError): Record<string, unknown> {
  return { vlm_format_error: `${e.name}: ${e.reason}`, format: e.format, output: e.output };
}

/**
 * A policy served by an OpenAI-compatible endpoint (vLLM, SGLang, OpenAI): each step sends the
 * format's system prompt, the task, the last K steps, optionally the element list, and the
 * screenshot as a PNG data URL; the completion is parsed in the format into the action space.
 *
 * The step's `thought` is the completion verbatim (reasoning and action as the model wrote them,
 * the exact text a trainer of the served model needs); `action` is the parsed action. A completion
 * that is not an action is a recorded format error; an endpoint that fails throws VlmEndpointError
 * (the episode ends as a policy error: it says nothing about the task).
 */
export class VlmPolicy implements Policy {
  readonly name: string;
  readonly settings: VlmPolicySettings;
  readonly format: ActionFormat;
  readonly client: VlmClient;
  private expectsAnswer: boolean | undefined;
  private exchanges: VlmExchange[] = [];
  /** This episode's completions (and screenshots) by step index, for turns history. */
  private memory = new Map<number, PastTurn>();
  private readonly onExchange: ((x: VlmExchange) => void) | undefined;
  private readonly onRequest: ((step: number, messages: readonly ChatMessage[]) => void) | undefined;
  private readonly template: { label: string; text: string; language: string } | undefined;

  /**
   * `onRequest` sees each step's messages exactly as they are sent (screenshots as data URLs): the
   * online GRPO loop keeps them so the trainer scores the completion under the prompt the model saw.
   */
  constructor(settings: VlmPolicySettingsInput, deps: ChatClientDeps & {
    env?: NodeJS.ProcessEnv; onExchange?: (x: VlmExchange) => void; onRequest?: (step: number, messages: readonly ChatMessage[]) => void;
  } = {}) {
    this.settings = VlmPolicySettings.parse(settings);
    this.format = vlmFormat(this.settings.format);
    const t = this.settings;
    const loaded = t.agent === 'qwen-cookbook' ? t.promptTool : androidWorldVariant(t.agent) ? t.promptTexts : t.promptTemplateText;
    if (t.promptTemplate && loaded === undefined) throw new PromptTemplateNotLoadedError(templateLabel(t.promptTemplate));
    if (t.promptTemplateText !== undefined) {
      const label = t.promptTemplate ? templateLabel(t.promptTemplate) : '(promptTemplateText)';
      // A template that does not read fails here, not at step 1; MobileRL's system prompt is sent as it is.
      if (t.agent !== 'mobilerl') templatePlaceholders(label, t.promptTemplateText);
      this.template = { label, text: t.promptTemplateText, language: t.promptLanguage };
    }
    this.client = new VlmClient(this.settings.endpoint, deps);
    this.name = this.settings.name ?? `vlm:${this.settings.endpoint.model}`;
    this.onExchange = deps.onExchange;
    this.onRequest = deps.onRequest;
  }

  start(ctx: { instruction: string; instance?: TaskInstance }): void {
    this.expectsAnswer = ctx.instance ? ctx.instance.template.kind === 'information_retrieval' : undefined;
    this.memory = new Map();
  }

  /** The exchanges since the last call, oldest first. */
  takeExchanges(): VlmExchange[] {
    const out = this.exchanges;
    this.exchanges = [];
    return out;
  }

  geometry(obs: Observation): GeometryContext {
    const s = this.settings;
    const g: GeometryContext = { screen: obs.screen, coordinates: s.coordinates ?? this.format.defaultCoordinates };
    const shot = obs.screenshot ? pngSize(obs.screenshot) : undefined;
    // An agent that resizes before sending: the model sees (and answers in) the resized image.
    const image = shot && agentResizes(s.agent) ? agentImageSize(shot, s.minPixels ?? QWEN_MIN_PIXELS, s.maxPixels ?? QWEN_MAX_PIXELS) ?? shot : shot;
    if (image) g.image = image;
    if (s.minPixels !== undefined) g.minPixels = s.minPixels;
    if (s.maxPixels !== undefined) g.maxPixels = s.maxPixels;
    return g;
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision> {
    const s = this.settings;
    if (s.screenshot && !obs.screenshot) throw new VlmScreenshotMissingError(ctx.step);
    if (ctx.instance && this.expectsAnswer === undefined) this.start({ instruction: ctx.instruction, instance: ctx.instance });
    const geometry = this.geometry(obs);
    const withElements = s.accessibilityTree ?? this.format.defaultElements;
    const prompt: PromptContext = {
      screen: obs.screen, coordinates: geometry.coordinates, frame: modelFrame(geometry), withScreenshot: s.screenshot, withElements,
      expectsAnswer: this.expectsAnswer,
    };
    // AndroidWorld's agents first summarize the step before (its after-screen is this one): its line of their history.
    const summary = await this.summarizePrevious(prompt, obs, ctx, geometry);
    const { messages, images, sent } = await this.request(prompt, obs, ctx, geometry);
    this.onRequest?.(ctx.step, messages);
    const request: RecordedRequest = { ...this.recorded(messages, images, geometry), ...(summary ? { summary } : {}) };
    const reply = await this.complete(messages, obs, ctx, geometry);
    const parseCtx: ParseContext = { ...geometry, obs, expectsAnswer: this.expectsAnswer };
    // The memory reaches back historySteps steps; it keeps screenshots only when some are resent, and an official
    // agent's memory the screen (to write a person's override in the model's format).
    const keep = s.historyImages > 0 || s.agent === 'androidworld-m3a' ? { screenshot: obs.screenshot, ...(sent ? { sent } : {}) } : {};
    this.memory.set(ctx.step, { completion: reply.text, ...keep, ...(s.agent === 'workbench' ? {} : { obs }) });
    for (const k of this.memory.keys()) if (k < ctx.step - s.historySteps) this.memory.delete(k);
    const usage = reply.usage ? { usage: reply.usage } : {};
    const base = {
      step: ctx.step, completion: reply.text, attempts: reply.attempts, latencyMs: reply.latencyMs, queuedMs: reply.queuedMs, ...usage,
      ...(reply.recovered ? { recovered: reply.recovered } : {}),
    };
    const served = { thought: reply.text, requestMs: reply.latencyMs, ...usage, request };
    try {
      const parsed = this.format.parse(reply.text, parseCtx);
      this.record({ ...base, ...(parsed.thought ? { thought: parsed.thought } : {}), outcome: { action: parsed.action } });
      return { action: parsed.action, ...served };
    } catch (e) {
      if (!(e instanceof VlmFormatError)) throw e;
      this.record({ ...base, outcome: { error: { name: e.name, message: e.message } } });
      return { action: malformedDecision(e), ...served };
    }
  }

  /**
   * Every request's parameters beside the messages: sampling, max_tokens, the resize bounds in the
   * server's field (so its processor sizes the screenshot as the coordinate mapping assumes), then
   * extraBody, which wins.
   */
  requestParams(): Record<string, unknown> {
    const s = this.settings;
    const pixels = s.screenshot ? pixelFields(s.endpoint.server, s) : {};
    return { temperature: s.temperature, max_tokens: s.maxTokens, ...pixels, ...s.extraBody };
  }

  /** The completion of this step's request: the endpoint's (a demonstrator writes its teacher's action instead). */
  protected complete(messages: ChatMessage[], _obs: Observation, _ctx: PolicyContext, _geometry: GeometryContext): Promise<Completion> {
    return this.client.complete(messages, this.requestParams());
  }

  /** The completion of an AndroidWorld agent's summary call (a demonstrator writes a line of its own instead). */
  protected completeSummary(messages: ChatMessage[]): Promise<Completion> {
    return this.client.complete(messages, this.requestParams());
  }

  /**
   * AndroidWorld's agents: the previous step's line of their history, kept in the memory; when the agent would ask
   * its model for it, the summary call is made here and returned for the record (agents/androidworld.ts).
   */
  private async summarizePrevious(prompt: PromptContext, obs: Observation, ctx: PolicyContext, geometry: GeometryContext): Promise<RecordedSummary | undefined> {
    const variant = androidWorldVariant(this.settings.agent);
    const prev = ctx.history.at(-1);
    const mine = prev && this.memory.get(prev.index);
    if (!variant || !prev || !mine?.obs || mine.historyLine !== undefined) return undefined;
    const texts = this.settings.promptTexts!;
    const input = this.agentInput(prompt, obs, ctx, geometry, this.sentImages(obs.screenshot ? { png: obs.screenshot } : undefined, ctx.step));
    const outcome = androidWorldStepOutcome(prev, pastReply(prev, this.memory, input), mine.obs, texts, variant);
    if ('line' in outcome) {
      mine.historyLine = outcome.line;
      return undefined;
    }
    const r = await androidWorldSummaryRequest(input, variant, { step: prev.index, obs: mine.obs, screenshot: mine.screenshot }, outcome.chosen);
    const reply = await this.completeSummary(r.messages);
    mine.historyLine = androidWorldSelectedLine(texts, variant, outcome.chosen.action, reply.text);
    return { step: prev.index, messages: recordedMessages(r.messages, r.images), reply: reply.text };
  }

  /** Each remembered step's screenshot as the agent sent it, and this step's. */
  private sentImages(current: SentImage | undefined, step: number): Map<number, SentImage> {
    const sent = new Map<number, SentImage>();
    for (const [k, m] of this.memory) if (m.sent ?? m.screenshot) sent.set(k, m.sent ?? { png: m.screenshot! });
    if (current) sent.set(step, current);
    return sent;
  }

  private agentInput(prompt: PromptContext, obs: Observation, ctx: PolicyContext, geometry: GeometryContext, sent: ReadonlyMap<number, SentImage>): AgentInput {
    const s = this.settings;
    return {
      format: this.format, prompt, geometry, obs, ctx, settings: s, memory: this.memory, sent, template: this.template, tool: s.promptTool, texts: s.promptTexts,
    };
  }

  /**
   * This step's request: the workbench's (prompt.ts), or the official agent's (agents/), with each image's source step
   * and, for an agent that resizes, the screenshot as sent.
   */
  private async request(prompt: PromptContext, obs: Observation, ctx: PolicyContext, geometry: GeometryContext): Promise<{ messages: ChatMessage[]; images: RequestImageSources; sent?: SentImage }> {
    const s = this.settings;
    if (s.agent === 'workbench') {
      const images = new Map<string, ImageSource[]>();
      const messages = buildMessages(this.format, prompt, obs, ctx, {
        withScreenshot: s.screenshot, withElements: prompt.withElements, historySteps: s.historySteps, historyStyle: s.historyStyle,
        historyImages: s.historyImages, template: this.template,
        onImage: (url, step) => images.set(url, [...(images.get(url) ?? []), { step }]),
      }, this.memory);
      return { messages, images };
    }
    let current: SentImage | undefined;
    if (s.screenshot && obs.screenshot) {
      current = agentResizes(s.agent) ? await sentImage(obs.screenshot, s.minPixels ?? QWEN_MIN_PIXELS, s.maxPixels ?? QWEN_MAX_PIXELS) : { png: obs.screenshot };
    }
    const r = await agentRequest(s.agent, this.agentInput(prompt, obs, ctx, geometry, this.sentImages(current, ctx.step)));
    return { ...r, ...(current ? { sent: current } : {}) };
  }

  /** The request as the step records it: images by the step whose screenshot they are. */
  private recorded(messages: readonly ChatMessage[], images: RequestImageSources, g: GeometryContext): RecordedRequest {
    return {
      messages: recordedMessages(messages, images), format: this.format.id, coordinates: g.coordinates,
      ...(g.minPixels !== undefined ? { minPixels: g.minPixels } : {}), ...(g.maxPixels !== undefined ? { maxPixels: g.maxPixels } : {}),
    };
  }

  private record(x: VlmExchange): void {
    this.exchanges.push(x);
    this.onExchange?.(x);
  }
}
