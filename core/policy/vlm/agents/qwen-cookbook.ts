import { balanced, lenientJsonValue, tagged } from '../lenient.js';
import type { ChatMessage } from '../prompt.js';
import { pythonJson } from './python-json.js';
import { pastReply, RequestImages, type AgentInput, type AgentRequest } from './types.js';

/**
 * The Qwen2.5-VL cookbook's mobile agent (cookbooks/mobile_agent.ipynb, "English App & Query with API"), the request
 * an OpenAI-compatible endpoint gets:
 * - system: two text parts, "You are a helpful assistant." and "\n\n" + qwen-agent's NousFnCallPrompt tool block
 *   around the mobile_use tool, `{"type": "function", "function": {name, description, parameters}}` as Python's
 *   json.dumps writes it (ensure_ascii off). The tool (its description with the screen's size, the smart-resized
 *   screenshot's, and its parameters) is read from the cookbook's utils/agent_function_call.py (prompt-templates.ts);
 *   the block around it is the Hermes function-calling frame, which Qwen2.5's chat templates write too;
 * - user: the screenshot (with the processor's `min_pixels` / `max_pixels`, as the cookbook sends them), then the
 *   query: `The user query:  <instruction>\nTask progress (You have done the following operation on the current
 *   device): ` followed by `Step k: <call>; ` for every earlier step, `<call>` the step's tool call as JSON (as the
 *   cookbook's example writes its history).
 * Sampling: the cookbook sends none; the preset asks for greedy decoding and its local example's 2048 new tokens.
 */
const SYSTEM = 'You are a helpful assistant.';
const TOOL_BLOCK = (descs: string) => `# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
${descs}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>`;

/** The tool's description with the screen's size written in (the loader marks where, recover the sentinels). */
export const FRAME_WIDTH = '\u0000frame_width\u0000';
export const FRAME_HEIGHT = '\u0000frame_height\u0000';

export function qwenCookbookRequest(input: AgentInput): AgentRequest {
  const { ctx, settings, tool, prompt } = input;
  if (!tool) throw new Error('qwen-cookbook: the mobile_use tool was not loaded (withPromptTemplate)');
  const description = tool.description.replaceAll(FRAME_WIDTH, String(prompt.frame.width)).replaceAll(FRAME_HEIGHT, String(prompt.frame.height));
  const descs = `{"type": "function", "function": {"name": ${pythonJson(tool.name)}, "description": ${pythonJson(description)}, "parameters": ${tool.parametersJson}}}`;
  const images = new RequestImages(input.sent);
  const steps = ctx.history.slice(-settings.historySteps).map((s, i) => `Step ${i + 1}: ${callText(pastReply(s, input.memory, input))}; `).join('');
  const query = `The user query:  ${ctx.instruction}\nTask progress (You have done the following operation on the current device): ${steps}`;
  const image = images.part(ctx.step, { min_pixels: input.geometry.minPixels, max_pixels: input.geometry.maxPixels });
  const messages: ChatMessage[] = [
    { role: 'system', content: [{ type: 'text', text: SYSTEM }, { type: 'text', text: `\n\n${TOOL_BLOCK(descs)}` }] },
    { role: 'user', content: [...(image ? [image] : []), { type: 'text', text: query }] },
  ];
  return { messages, images: images.images };
}

/** A reply's tool call as JSON, Python's spelling (the cookbook's history); the reply itself when it holds none. */
function callText(reply: string): string {
  const body = tagged(reply, 'tool_call') ?? reply;
  const span = balanced(body, 0, '{', '}');
  if (!span) return reply.trim();
  const r = lenientJsonValue(body.slice(span.start, span.end));
  return r.ok ? pythonJson(r.value) : reply.trim();
}
