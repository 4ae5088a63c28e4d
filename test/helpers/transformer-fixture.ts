import { join } from 'node:path';
import { TransformerSftConfigSchema } from '../../core/rl/transformer-config.js';
import { runTransformerSft } from '../../core/rl/transformer-sft.js';
import { device } from './simdroid.js';
import { requirePython } from '../python-env.js';

/**
 * A tiny transformer policy model folder for rollout tests: the smallest shape test/rl/transformer-train.test.ts
 * trains (width 32, one screen layer, embeddings-only text encoder, the test WordPiece vocabulary), behaviour-cloned
 * for 30 epochs (about 4 s here) on the oracle's demonstrations of two short templates, so its sampled rollouts succeed sometimes
 * and GRPO groups have something to learn from. Needs the trainer's venv.
 */
export const TINY_TRANSFORMER_TOKENIZER = join(import.meta.dirname, '..', 'policy', 'transformer-fixtures', 'tokenizer.json');
export const TINY_TRANSFORMER_SHAPE = { width: 32, heads: 2, screenLayers: 1, textWidth: 32, textHeads: 2, textLayers: 0, textFfn: 64 };
export const TINY_TRANSFORMER_TEMPLATES = ['SystemWifiTurnOn', 'ClockStopwatchRun'];

export async function tinyTransformerModel(outDir: string, epochs = 30): Promise<string> {
  process.env.AWB_PYTHON = requirePython();
  const d = device();
  try {
    const config = TransformerSftConfigSchema.parse({
      templates: TINY_TRANSFORMER_TEMPLATES, seeds: [1, 2], shape: TINY_TRANSFORMER_SHAPE, tokenizer: TINY_TRANSFORMER_TOKENIZER, sft: { epochs, batchSize: 8, lr: 1e-2 },
    });
    await runTransformerSft(config, { device: d, outDir });
  } finally {
    d.close();
  }
  return outDir;
}
