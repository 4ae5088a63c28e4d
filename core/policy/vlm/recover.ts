import type { StreamFailure } from '../../llm/chat-client.js';

/**
 * Replies a server failed to hand back, put back together. `transformers serve` parses a Qwen2.5-VL reply's
 * `<tool_call>` regions as JSON itself (its response template for qwen2/qwen2_5_vl: open `\s*<tool_call>`, close
 * `</tool_call>`, content json); a region that is not JSON raises, which is an HTTP 500 without the text when the
 * request was not streamed. Streamed, the text before the region has already been sent as content deltas and the
 * server's error event carries the region verbatim, as Python's repr: `json parser could not parse region as
 * JSON.\nContent: '…'\nError: …` (transformers/utils/chat_parsing/content_parsers.py). The reply is that text, the
 * region back in its tags: the whitespace the open pattern swallowed before `<tool_call>` is written as one newline
 * (Qwen2.5's chat template's separator), the only part not taken from the server. The stream may also have sent
 * pieces of the opening tag as content while its parser was still matching it (`<tool<tool` before a reply that
 * starts with the call, measured with transformers 5.17): those are dropped, since the tag follows.
 */
const TAG_PIECES = /(?:<(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l>?)?)?)?)?)?)?)?)?)?)+$/;
const REGION = /^json(?: parser could not parse region as JSON\.|: could not parse after dialect transforms\.)\s*(?:Content|Original): ('(?:[^'\\]|\\[\s\S])*'|"(?:[^"\\]|\\[\s\S])*")/;

/** The model's reply from a transformers-serve stream that failed on a tool-call region, or undefined for any other failure. */
export function recoverToolCallReply(f: StreamFailure): string | undefined {
  const m = REGION.exec(f.error.trim());
  if (!m) return undefined;
  const region = pythonString(m[1]!);
  if (region === undefined) return undefined;
  const before = f.content.replace(TAG_PIECES, '').replace(/\s+$/, '');
  return `${before}${before ? '\n' : ''}<tool_call>${region}</tool_call>`;
}

const SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** A Python str literal as repr() writes it (quotes, \n \t \\ \' \xhh \uhhhh \Uhhhhhhhh), decoded; undefined when it is not one. */
export function pythonString(literal: string): string | undefined {
  const q = literal[0];
  if ((q !== "'" && q !== '"') || literal.at(-1) !== q || literal.length < 2) return undefined;
  const body = literal.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    const hex = { x: 2, u: 4, U: 8 }[e];
    if (hex) {
      const digits = body.slice(i + 1, i + 1 + hex);
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== hex) return undefined;
      out += String.fromCodePoint(parseInt(digits, 16));
      i += hex;
    } else if (e in SIMPLE) out += SIMPLE[e];
    else return undefined;
  }
  return out;
}
