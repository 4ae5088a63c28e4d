import { z } from 'zod';
import { runEpisode } from '../episode/runner.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Observation } from '../device/observation.js';
import type { RecordedSummary } from '../episode/record.js';
import { instantiate } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { VlmDemonstrator } from '../policy/vlm/demonstrator.js';
import { vlmFormat } from '../policy/vlm/formats/index.js';
import { modelFrame, pngSize } from '../policy/vlm/geometry.js';
import { VlmPolicy } from '../policy/vlm/policy.js';
import type { ChatMessage, ContentPart } from '../policy/vlm/prompt.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { embeddedDevice, type Io } from './main.js';
import { vlmFlagOptions, VlmFlagValues, vlmSettingsFromFlags } from './policies.js';

/** `awb vlm request --step K` past the end of the episode that leads to it. */
export class VlmRequestStepError extends Error {
  override name = 'VlmRequestStepError';
  constructor(readonly step: number, readonly taken: number, readonly terminatedBy: string, detail?: string) {
    super(`Step ${step} is never asked: the oracle's episode ended after ${taken} step${taken === 1 ? '' : 's'} (${terminatedBy}${detail ? `: ${detail}` : ''}); `
      + `give --step 0${taken > 1 ? ` to ${taken - 1}` : ''}`);
  }
}

const Flags = z.object({
  ...VlmFlagValues,
  // Checked by the format registry, so an unknown one is an UnknownVlmFormatError listing the known.
  format: z.string().optional(),
  task: z.string({ error: '--task is required' }),
  seed: intArg('--seed').default(0),
  step: intArg('--step').pipe(z.number().max(499)).default(0),
});

/** Where an ad-hoc request would go when no endpoint is named: nowhere (it is only printed). */
const NO_ENDPOINT = 'http://endpoint.invalid/v1';

/** The messages with each image's bytes elided (`data:image/png;base64,<N bytes>`), and the images' sizes. */
function elideImages(messages: readonly ChatMessage[]): { messages: ChatMessage[]; images: Array<{ message: number; width: number | null; height: number | null; bytes: number }> } {
  const images: Array<{ message: number; width: number | null; height: number | null; bytes: number }> = [];
  const out = messages.map((m, message): ChatMessage => {
    if (typeof m.content === 'string') return { ...m };
    return {
      ...m,
      content: m.content.map((p): ContentPart => {
        if (p.type !== 'image_url') return { ...p };
        const [head, b64 = ''] = p.image_url.url.split(',', 2);
        const bytes = Buffer.from(b64, 'base64');
        const size = pngSize(bytes);
        images.push({ message, width: size?.width ?? null, height: size?.height ?? null, bytes: bytes.length });
        return { type: 'image_url', image_url: { url: `${head},<${bytes.length} bytes>` } };
      }),
    };
  });
  return { messages: out, images };
}

/**
 * `awb vlm request`: the request VlmPolicy would send at step K of a task instance on the embedded
 * SimDroid. Steps 0…K−1 are the oracle's, written in the format by VlmDemonstrator (what a perfect
 * model of the format would have said, so turns history carries realistic completions); the
 * messages are the ones its own request building makes at step K (the onRequest hook), before any
 * action is taken there; the parameters are VlmPolicy.requestParams of the settings given.
 */
export async function vlmRequest(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseFlags(argv, {
    ...vlmFlagOptions, task: { type: 'string' }, seed: { type: 'string' }, step: { type: 'string' },
  }, Flags);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}`);
  if (!v.format && !v.endpoint && !v.preset) throw new UsageError('awb vlm request needs --preset P or --format F (or --endpoint NAME, whose profile names one)');
  const format = v.format ? vlmFormat(v.format).id : undefined;
  const settings = vlmSettingsFromFlags({
    ...v, format, ...(v.endpoint ? {} : { 'base-url': v['base-url'] ?? NO_ENDPOINT, ...(v.model || v.preset ? {} : { model: 'MODEL' }) }),
  });
  const instance = instantiate(getTemplate(v.task), v.seed);
  // Nothing is sent: the key is not needed (and an unset apiKeyEnv must not stop a dry look).
  const { apiKey: _key, apiKeyEnv: _env, ...endpoint } = settings.endpoint;
  const policy = new VlmPolicy({ ...settings, endpoint });
  const { endpoint: _e, ...demoSettings } = settings;
  let sent: readonly ChatMessage[] | undefined;
  let obs: Observation | undefined;
  let summary: RecordedSummary | undefined;
  const demo = new VlmDemonstrator(new OraclePolicy(), demoSettings, {
    onRequest: (step, messages) => {
      if (step === v.step) sent = messages;
    },
  });
  const device = embeddedDevice();
  let result;
  try {
    result = await runEpisode({
      device, instance, policy: demo, screenshots: 'half', maxSteps: v.step + 1,
      hooks: {
        beforeAct: async (p) => {
          if (p.index !== v.step) return;
          obs = p.obs;
          summary = p.decision.request?.summary;
          return { stop: true };
        },
      },
    });
  } finally {
    device.close();
  }
  if (!sent || !obs) throw new VlmRequestStepError(v.step, result.steps.length, result.terminatedBy, result.error?.message);
  const geometry = policy.geometry(obs);
  const { messages, images } = elideImages(sent);
  io.out(JSON.stringify({
    task: { template: instance.template.id, seed: instance.seed, instruction: instance.instruction },
    step: v.step,
    before: result.steps.map((s) => s.description ?? JSON.stringify(s.raw)),
    format: settings.format,
    geometry: { screen: geometry.screen, image: geometry.image ?? null, coordinates: geometry.coordinates, frame: modelFrame(geometry) },
    images,
    request: { ...(v.endpoint !== undefined || v.model !== undefined || v.preset !== undefined ? { model: settings.endpoint.model } : {}), messages, ...policy.requestParams() },
    // AndroidWorld's agents: the summary call about the step before, made first (images named by step and marks).
    ...(summary ? { summary } : {}),
  }, null, 2));
  return 0;
}
