import type { Observation } from '../device/observation.js';
import type { PolicyDecision } from '../episode/policy.js';
import { vlmFormat } from '../policy/vlm/formats/index.js';
import { VlmFormatError } from '../policy/vlm/errors.js';
import type { GeometryContext } from '../policy/vlm/geometry.js';
import type { TaskInstance } from '../tasks/instance.js';
import { fromJsonAction } from './androidworld-action.js';
import type { ObservationSpec, StepRequest } from './protocol.js';

/**
 * An outside agent's `step` as the runner's policy decision (docs/env-protocol.md, `step`): the workbench's action as
 * given (the runner parses it: a malformed one is a recorded failed step), AndroidWorld's JSONAction converted, or a
 * model's reply parsed by its format's parser as the VLM policies parse it. What cannot be carried out becomes the
 * decision's `malformed` reason, so the runner records the step as failed with that reason and the device is untouched.
 * The agent's attachments (thought, prompt, reply) ride along to the step record.
 */
export function agentDecision(req: StepRequest, obs: Observation, instance: TaskInstance, spec: ObservationSpec): PolicyDecision {
  const attached: Pick<PolicyDecision, 'thought' | 'prompt' | 'reply'> = {};
  if (req.thought !== undefined) attached.thought = req.thought;
  if (req.prompt !== undefined) attached.prompt = typeof req.prompt === 'string' ? req.prompt : JSON.stringify(req.prompt);
  if (req.reply !== undefined) attached.reply = req.reply;
  if (req.action !== undefined) return { action: req.action, ...attached };
  if (req.json_action !== undefined) {
    const c = fromJsonAction(req.json_action, obs);
    return c.ok ? { action: c.action, ...attached } : { action: req.json_action, malformed: { name: 'AndroidWorldActionError', message: c.reason }, ...attached };
  }
  const format = vlmFormat(req.format!);
  const geometry: GeometryContext = { screen: obs.screen, coordinates: req.coordinates ?? format.defaultCoordinates };
  // The image the model saw: as the client says, else the screenshot this session sends.
  if (req.image) geometry.image = { width: req.image[0], height: req.image[1] };
  else if (spec.screenshot !== 'none') geometry.image = { width: Math.round(obs.screen.width * spec.scale), height: Math.round(obs.screen.height * spec.scale) };
  if (req.min_pixels !== undefined) geometry.minPixels = req.min_pixels;
  if (req.max_pixels !== undefined) geometry.maxPixels = req.max_pixels;
  try {
    const parsed = format.parse(req.reply!, { ...geometry, obs, expectsAnswer: instance.template.kind === 'information_retrieval' });
    return { action: parsed.action, ...(parsed.thought !== undefined ? { thought: parsed.thought } : {}), ...attached };
  } catch (e) {
    if (!(e instanceof VlmFormatError)) throw e;
    return { action: req.reply, malformed: { name: e.name, message: e.message }, ...attached };
  }
}
