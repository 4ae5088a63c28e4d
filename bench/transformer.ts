/**
 * The transformer policy's step in ONNX Runtime (issue 37): per-step inference on real screens, for the default shape
 * and two others, one intra-op thread as the workbench runs it. The inputs are the oracle's steps on every template
 * (seed 0); each model is a fresh one from the trainer's session (weights do not change the cost), written with the
 * tests' small WordPiece vocabulary unless AWB_BENCH_TOKENIZER names a tokenizer.json (all-MiniLM-L6-v2's 30,522 tokens
 * only grow the embedding table: a look-up, not compute). Reports the forward alone and the whole `act` (tokenising
 * the screen, the forward, the choice and the Agent view's candidates), median and p95 per step, and the parameters.
 *   npm run bench -- transformer
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSimDroids } from '../core/devices/provider.js';
import type { Observation } from '../core/device/observation.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import type { Policy, PolicyContext } from '../core/episode/policy.js';
import { runEpisode } from '../core/episode/runner.js';
import { buildStepInputs } from '../core/policy/transformer/inputs.js';
import { TransformerModel } from '../core/policy/transformer/model.js';
import { TransformerPolicy } from '../core/policy/transformer/policy.js';
import { shapeLayout, trainerModelConfig, TransformerShapeSchema } from '../core/rl/transformer-config.js';
import { TransformerSession } from '../core/rl/transformer-session.js';
import { instantiate } from '../core/tasks/instance.js';
import { TASKS } from '../core/tasks/registry.js';
import { stats, type Stats } from './stats.js';

const SHAPES = {
  'default (width 128, 3 screen layers, text: embeddings only, textField, spanContext)': {},
  'default without textField and spanContext (before 2026-11-29)': { textField: false, spanContext: false },
  'default + rowMatch': { rowMatch: true },
  'small (width 64, 2 screen layers)': { width: 64, heads: 2, screenLayers: 2, textWidth: 64, textFfn: 256 },
  'large (width 256, 4 screen layers, 1 text layer)': { width: 256, heads: 8, screenLayers: 4, textWidth: 256, textLayers: 1, textFfn: 1024 },
} as const;
const TOKENIZER = process.env.AWB_BENCH_TOKENIZER ?? join(import.meta.dirname, '..', 'test', 'policy', 'transformer-fixtures', 'tokenizer.json');
const ROUNDS = 1;

/** The oracle's observations and contexts on every template, seed 0. */
async function oracleScreens(): Promise<{ obs: Observation; ctx: PolicyContext }[]> {
  const [device] = openSimDroids(1, 'bench-tf-');
  const out: { obs: Observation; ctx: PolicyContext }[] = [];
  try {
    for (const t of TASKS) {
      const oracle = new OraclePolicy();
      const spy: Policy = { name: 'oracle', start: (c) => oracle.start(c), act: (obs, ctx) => { out.push({ obs, ctx: { ...ctx, history: [...ctx.history] } }); return oracle.act(obs, ctx); } };
      await runEpisode({ device: device!, instance: instantiate(t, 0), policy: spy });
    }
  } finally {
    device!.close();
  }
  return out;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const fmt = (s: Stats) => `median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, max ${s.max.toFixed(1)} ms`;

export async function benchTransformer(): Promise<Record<string, unknown>> {
  const screens = await oracleScreens();
  const elements = stats(screens.map((s) => s.obs.elements.length));
  console.log(`${screens.length} oracle steps over ${TASKS.length} templates; elements per screen median ${elements.median}, p95 ${elements.p95}, max ${elements.max}`);
  const results: Record<string, unknown> = { steps: screens.length, elementsPerScreen: elements, tokenizer: TOKENIZER };
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-tf-'));
  const session = TransformerSession.start();
  try {
    for (const [name, partial] of Object.entries(SHAPES)) {
      const shape = TransformerShapeSchema.parse(partial);
      const out = join(dir, String(Object.keys(results).length));
      const { parameters } = await session.request<{ parameters: { total: number; text: number } }>('create', {
        model: trainerModelConfig(shape), layout: shapeLayout(shape), seed: 0, tokenizer: TOKENIZER,
      });
      await session.request('save', { out, meta: { trainer: 'bench' } });
      const model = await TransformerModel.load(out);
      try {
        const policy = new TransformerPolicy(model);
        const inputs = screens.map((s) => buildStepInputs(s.obs, s.ctx, model.tokenizer, model.layout));
        for (const x of inputs.slice(0, 50)) await model.forward(x);
        const forward: number[] = [];
        const act: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          for (const [i, x] of inputs.entries()) {
            forward.push(await timeAsync(() => model.forward(x)));
            act.push(await timeAsync(() => policy.act(screens[i]!.obs, screens[i]!.ctx)));
          }
        }
        const s = { parameters, forward: stats(forward), act: stats(act) };
        results[name] = s;
        console.log(`${name}: ${parameters.total.toLocaleString('en')} parameters (${parameters.text.toLocaleString('en')} in the text encoder)`);
        console.log(`  forward ${fmt(s.forward)}`);
        console.log(`  act     ${fmt(s.act)}  (n=${act.length})`);
      } finally {
        await model.close();
      }
    }
  } finally {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
