import { assertNever } from '../../../util/errors.js';
import { fillTemplate, templatePlaceholders } from '../prompt-template.js';
import type { ChatMessage } from '../prompt.js';
import { pastReply, RequestImages, type AgentInput, type AgentRequest } from './types.js';

/**
 * UI-TARS as its authors run it in OSWorld (the agents the UI-TARS README points to for complete use):
 * mm_agents/uitars15_v1.py for UI-TARS-1.5 (infer_mode qwen25vl_normal) and mm_agents/uitars_agent.py for UI-TARS
 * (qwen2vl_user). The request, in order:
 * - a system turn "You are a helpful assistant." as one text part;
 * - a user turn with the prompt as one text part: the official template filled with the instruction and the language
 *   (1.5: the ui-tars package's MOBILE_USE_DOUBAO; UI-TARS: the prompt file, the instruction appended when the text has
 *   no {instruction}, as its README's example does);
 * - every earlier reply as an assistant turn (1.5: one text part; UI-TARS: the text), each of the last `history_n − 1`
 *   (historyImages, 4) preceded by a user turn with that step's screenshot;
 * - a user turn with the current screenshot.
 * Screenshots are sent as PNG, resized first when over maxPixels or under minPixels (agents/images.ts). Sampling
 * (the preset): temperature 0, top_p 0.9, frequency_penalty 1, max_tokens 1000.
 */
const SYSTEM = 'You are a helpful assistant.';

export function uiTarsRequest(input: AgentInput, variant: 'ui-tars-1.5' | 'ui-tars-v1'): AgentRequest {
  const { ctx, settings, template } = input;
  const images = new RequestImages(input.sent);
  const t = template ?? { label: '(none)', text: '', language: settings.promptLanguage };
  const used = templatePlaceholders(t.label, t.text);
  const filled = fillTemplate(t.label, t.text, {
    instruction: ctx.instruction, language: t.language, history: '', app: '', screen_width: String(input.prompt.screen.width),
    screen_height: String(input.prompt.screen.height), frame_width: String(input.prompt.frame.width), frame_height: String(input.prompt.frame.height),
  });
  const prompt = used.has('instruction') ? filled : filled + ctx.instruction;
  const messages: ChatMessage[] = [
    { role: 'system', content: [{ type: 'text', text: SYSTEM }] },
    { role: 'user', content: [{ type: 'text', text: prompt }] },
  ];
  const past = ctx.history.slice(-settings.historySteps);
  past.forEach((s, i) => {
    if (i >= past.length - settings.historyImages) {
      const part = images.part(s.index);
      if (part) messages.push({ role: 'user', content: [part] });
    }
    const reply = pastReply(s, input.memory, input);
    switch (variant) {
      case 'ui-tars-1.5':
        messages.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
        break;
      case 'ui-tars-v1':
        messages.push({ role: 'assistant', content: reply });
        break;
      default:
        assertNever(variant, 'UI-TARS variant');
    }
  });
  const current = images.part(ctx.step);
  messages.push({ role: 'user', content: current ? [current] : [{ type: 'text', text: '' }] });
  return { messages, images: images.images };
}
