/**
 * The transformer SFT's minibatches (issue 37): random minibatches padded to the layout's full goal length, as the
 * trainer formed them before, against length-bucketed minibatches read up to their longest goal, as it forms them now.
 * The steps are real: the oracle's demonstrations of the unseen-instance train part at training seed 1, as the
 * transformer policy reads them with all-MiniLM-L6-v2's tokenizer. bench/transformer_sft_batches.py times both on one
 * torch thread, alternating, with a fresh default-shape network each round (forward, backward, AdamW step).
 *   npm run bench -- transformer-sft
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSimDroids } from '../core/devices/provider.js';
import { WordPieceTokenizer } from '../core/policy/transformer/wordpiece.js';
import { shapeLayout, trainerModelConfig, TransformerShapeSchema } from '../core/rl/transformer-config.js';
import { collectTransformerDemonstrations, writeSteps } from '../core/rl/transformer-sft.js';
import { TransformerSession, trainerPython } from '../core/rl/transformer-session.js';
import { demonstrationInstances } from '../core/rl/train-sft.js';

const ROUNDS = 3;
const BATCHES = 30;

export async function benchTransformerSft(): Promise<Record<string, unknown>> {
  const shape = TransformerShapeSchema.parse({});
  const layout = shapeLayout(shape);
  const session = TransformerSession.start();
  let tokenizer: string;
  try {
    ({ tokenizer } = await session.request<{ tokenizer: string }>('create', { model: trainerModelConfig(shape), layout, seed: 0 }));
  } finally {
    await session.close();
  }
  const tok = WordPieceTokenizer.load(tokenizer);
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-tsft-'));
  const [device] = openSimDroids(1, 'bench-tsft-');
  try {
    const demos = await collectTransformerDemonstrations(device!, demonstrationInstances({ split: 'unseen-instance', part: 'train', seeds: [1] }), tok, layout);
    const steps = writeSteps(dir, demos.steps);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ layout, vocab: tok.vocabSize, ...trainerModelConfig(shape) }));
    const out = execFileSync(trainerPython(), [join(import.meta.dirname, 'transformer_sft_batches.py'), steps, config, String(ROUNDS), String(BATCHES)], {
      cwd: join(import.meta.dirname, '..'), encoding: 'utf8', maxBuffer: 1 << 20,
    });
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    console.log(`transformer SFT minibatches over ${String(r.steps)} demonstration steps: before ${JSON.stringify(r.beforeSPerBatch)} s/batch, `
      + `after ${JSON.stringify(r.afterSPerBatch)} s/batch, ${(r.speedup as number).toFixed(2)}x`);
    return r;
  } finally {
    device!.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
