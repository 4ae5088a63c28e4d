import { describe, expect, it } from 'vitest';
import { assembleStream } from '../../core/llm/chat-client.js';
import { completionText } from '../../core/policy/vlm/client.js';
import { pythonString, recoverToolCallReply } from '../../core/policy/vlm/recover.js';
import { vlmFormat } from '../../core/policy/vlm/formats/index.js';
import { VlmFormatError } from '../../core/policy/vlm/errors.js';

/**
 * Putting back replies a server failed on. The real transformers serve is the judge in served-vlm.test.ts; these
 * pin the pieces on the exact text it sends (an error event copied from its stream: unescaped newlines, the region
 * as Python's repr) and vLLM's hermes parser's answer for a call that is not JSON (the text stays content).
 */
const chunk = (delta: Record<string, unknown>) => `data: ${JSON.stringify({ choices: [{ delta, index: 0 }] })}\n\n`;

describe('assembleStream', () => {
  it('joins content deltas, tool calls by index and the last usage', () => {
    const body = chunk({ role: 'assistant' }) + chunk({ content: 'I tap' }) + chunk({ content: ' it.' })
      + chunk({ tool_calls: [{ index: 0, function: { name: 'mobile_use', arguments: '{"action": "click", ' } }] })
      + chunk({ tool_calls: [{ index: 0, function: { arguments: '"coordinate": [1, 2]}' } }] })
      + `data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 4 } })}\n\ndata: [DONE]\n\n`;
    expect(assembleStream(body)).toEqual({ completion: {
      choices: [{ message: { content: 'I tap it.', tool_calls: [{ function: { name: 'mobile_use', arguments: '{"action": "click", "coordinate": [1, 2]}' } }] } }],
      usage: { prompt_tokens: 10, completion_tokens: 4 },
    } });
  });

  it("an error event (transformers serve's, unescaped newlines) is a failure with the text so far", () => {
    const body = chunk({ content: 'Let me open it.' })
      + 'data: {"error": "json parser could not parse region as JSON.\nContent: \'\\n{"name": "mobile_use", "arguments": {"action": \\n\'\nError: Expecting value: line 3 column 1 (char 49)"}\n\n';
    const r = assembleStream(body);
    expect(r).toEqual({ failure: { content: 'Let me open it.', error: expect.stringMatching(/^json parser could not parse region as JSON\.\nContent: /) } });
    if (!('failure' in r)) return;
    const text = recoverToolCallReply(r.failure)!;
    expect(text).toBe('Let me open it.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": \n</tool_call>');
    expect(() => vlmFormat('qwen-mobile-use').parse(text, { screen: { width: 1080, height: 2400 }, coordinates: 'smart-resize' })).toThrow(VlmFormatError);
  });

  it('an error that is not about a tool-call region is not recovered', () => {
    expect(recoverToolCallReply({ content: 'x', error: 'CUDA out of memory' })).toBeUndefined();
  });
});

describe('pythonString', () => {
  it.each([
    [String.raw`'a\nb'`, 'a\nb'],
    [String.raw`"it's"`, "it's"],
    [String.raw`'\'q\' \\ \t \x41 \u00e9 \U0001f600'`, "'q' \\ \t A é 😀"],
  ])('%s', (lit, value) => expect(pythonString(lit)).toBe(value));

  it.each([[`'open`], [String.raw`'\q'`], [String.raw`'\x4'`], ['abc']])('refuses %s', (lit) => expect(pythonString(lit)).toBeUndefined());
});

describe("vLLM's hermes parser on a call that is not JSON", () => {
  it('leaves the text as content: the completion is the reply, and the format refuses it', () => {
    const raw = 'Open it.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": \n</tool_call>';
    const text = completionText({ message: { content: raw } });
    expect(text).toBe(raw);
    expect(() => vlmFormat('qwen-mobile-use').parse(text, { screen: { width: 1080, height: 2400 }, coordinates: 'smart-resize' })).toThrow(VlmFormatError);
  });
});
