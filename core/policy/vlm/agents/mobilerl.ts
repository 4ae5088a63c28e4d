import { appByPackage } from '../../../device/app-catalog.js';
import type { Observation } from '../../../device/observation.js';
import { mobileRlElementsText } from '../formats/mobilerl-elements.js';
import type { ChatMessage, ContentPart } from '../prompt.js';
import { pythonJson } from './python-json.js';
import { pastReply, RequestImages, type AgentInput, type AgentRequest } from './types.js';

/**
 * MobileRL's AndroidWorld evaluation as its authors run it (scripts/configs/mobilerl-android-world.yaml:
 * Multi_ScreenshotTask in android_lab/evaluation/evaluation.py, picture_round 2, with_xml, the RLAgent of
 * android_lab/agent/model.py), the request at step t:
 * - system: AW_SYSTEM_PROMPT_THINKING, read from android_lab/templates/android_screenshot_template.py;
 * - for each earlier step k < t − 1, as the recorder keeps it (JSONRecorder.update_after): a user turn of text only —
 *   step 0's the instruction, later ones "** Screen Info **" — each followed by `\n\n{"current_app": <app at k>}`, and
 *   an assistant turn with the model's reply;
 * - step t − 1 again with its screenshot (picture_round 2): a user turn [image of step t − 1, text], the text being the
 *   one step t builds (the instruction when t − 1 is step 0, else "** Screen Info **", with the app at step t, as the
 *   official code reuses it), then its reply;
 * - a user turn [image of step t, that text + "\n" + the screen's compressed XML].
 * Sampling: temperature 0, top_p 0.95, max_tokens 4096, seed 34 (RLAgent's request body).
 * Not sent: the official code keeps `"current_app": <app>` as an extra field on the newest assistant message (outside
 * the chat schema; vLLM and SGLang drop it), and labels its PNG data URLs image/jpeg.
 */
const SCREEN_INFO = '** Screen Info **';

function appLine(obs: Observation): string {
  const app = appByPackage(obs.foreground.package)?.name ?? obs.foreground.package;
  return `\n\n${pythonJson({ current_app: app })}`;
}

export function mobileRlRequest(input: AgentInput): AgentRequest {
  const { ctx, obs, template } = input;
  if (!template) throw new Error('mobilerl: AW_SYSTEM_PROMPT_THINKING was not loaded (withPromptTemplate)');
  const images = new RequestImages(input.sent);
  const messages: ChatMessage[] = [{ role: 'system', content: template.text }];
  const history = ctx.history.slice(-input.settings.historySteps);
  const textOf = (k: number, app: string) => (k === 0 ? ctx.instruction : SCREEN_INFO) + app;
  const now = appLine(obs);
  history.forEach((s, i) => {
    const reply = pastReply(s, input.memory, input);
    if (i < history.length - 1) {
      const then = input.memory.get(s.index)?.obs;
      messages.push({ role: 'user', content: textOf(s.index, then ? appLine(then) : now) });
    } else {
      const part = images.part(s.index);
      const text: ContentPart = { type: 'text', text: textOf(s.index, now) };
      messages.push({ role: 'user', content: part ? [part, text] : [text] });
    }
    messages.push({ role: 'assistant', content: reply });
  });
  const xml = mobileRlElementsText(obs, input.prompt);
  const part = images.part(ctx.step);
  const text: ContentPart = { type: 'text', text: `${textOf(ctx.step, now)}\n${xml}` };
  messages.push({ role: 'user', content: part ? [part, text] : [text] });
  return { messages, images: images.images };
}
