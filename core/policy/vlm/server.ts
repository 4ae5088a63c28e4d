import { z } from 'zod';
import { assertNever } from '../../util/errors.js';
import { QWEN_MAX_PIXELS, QWEN_MIN_PIXELS } from './geometry.js';

/**
 * Which OpenAI-compatible server answers, as far as the request body differs between them. Only
 * the image resize bounds differ today: the workbench maps `smart-resize` coordinates through
 * [minPixels, maxPixels], so the server's image processor must resize with the same bounds, and
 * each server takes them in its own field (docs/policy-vlm.md "Serving"):
 * - `vllm`: `mm_processor_kwargs` (vLLM's extra chat-completions parameter, "Additional kwargs to
 *   pass to the HF processor");
 * - `transformers`: `chat_template_kwargs` (`transformers serve` forwards them to the processor's
 *   apply_chat_template; it answers 422 to any field it does not know, mm_processor_kwargs included);
 * - `other`: none (OpenAI and servers that refuse unknown fields); the server's own bounds apply.
 */
export const VLM_SERVERS = ['vllm', 'transformers', 'other'] as const;
export const VlmServer = z.enum(VLM_SERVERS);
export type VlmServer = z.infer<typeof VlmServer>;

export interface PixelBounds {
  minPixels?: number | undefined;
  maxPixels?: number | undefined;
}

/** The request fields that carry the resize bounds (the Qwen2.5-VL defaults where unset) to `server`'s image processor. */
export function pixelFields(server: VlmServer, b: PixelBounds): Record<string, unknown> {
  const bounds = { min_pixels: b.minPixels ?? QWEN_MIN_PIXELS, max_pixels: b.maxPixels ?? QWEN_MAX_PIXELS };
  switch (server) {
    case 'vllm': return { mm_processor_kwargs: bounds };
    case 'transformers': return { chat_template_kwargs: bounds };
    case 'other': return {};
    default: return assertNever(server);
  }
}
