import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAction, type ActionType } from '../actions/schema.js';
import type { Device } from '../device/device.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Policy } from '../episode/policy.js';
import type { EpisodeRecorder } from '../episode/record.js';
import { runEpisode } from '../episode/runner.js';
import { actionChoice, type HeadShape } from '../policy/transformer/actions.js';
import { buildStepInputs } from '../policy/transformer/inputs.js';
import type { Layout } from '../policy/transformer/layout.js';
import { readModelConfig } from '../policy/transformer/model.js';
import { trainingStepLine, type TrainingStep } from '../policy/transformer/records.js';
import { WordPieceTokenizer } from '../policy/transformer/wordpiece.js';
import type { TaskInstance } from '../tasks/instance.js';
import { demonstrationInstances } from './train-sft.js';
import { shapeLayout, trainerModelConfig, type TransformerSftConfig } from './transformer-config.js';
import { TransformerSession } from './transformer-session.js';

/**
 * SFT of the transformer policy: the oracle demonstrates each instance, every step becomes the network's inputs and
 * the choice the oracle's action is (core/policy/transformer/actions.ts actionChoice; steps the policy cannot form are
 * counted, not trained on), and the trainer's session behaviour-clones on them and writes the model folder.
 */

export interface TransformerDemonstrations {
  steps: TrainingStep[];
  /** Oracle steps the policy cannot form, by action type. */
  skipped: Partial<Record<ActionType, number>>;
  episodes: number;
  oracleFailures: number;
  /** Per step: the foreground package and the task's apps (per-app adapters train on their app's steps). */
  packages: string[];
  taskApps: (readonly string[])[];
}

export const headShape = (l: Layout): HeadShape => ({ goalTokens: l.goalTokens, maxSpan: l.maxSpan, itemTokens: l.itemTokens, itemSpan: Math.min(l.maxSpan, l.itemTokens) });

/** Runs the oracle on each instance and records every step as the transformer policy's inputs and choice. */
export async function collectTransformerDemonstrations(
  device: Device, instances: readonly TaskInstance[], tok: WordPieceTokenizer, layout: Layout,
  opts: { signal?: AbortSignal; recorder?: () => EpisodeRecorder; onInstance?: (i: number, n: number) => void; firstEpisode?: number } = {},
): Promise<TransformerDemonstrations> {
  const out: TransformerDemonstrations = { steps: [], skipped: {}, episodes: 0, oracleFailures: 0, packages: [], taskApps: [] };
  const shape = headShape(layout);
  for (const [i, instance] of instances.entries()) {
    opts.onInstance?.(i, instances.length);
    if (opts.signal?.aborted) break;
    const episode = (opts.firstEpisode ?? 0) + i;
    const oracle = new OraclePolicy();
    const spy: Policy = {
      name: 'oracle',
      start: (ctx) => oracle.start(ctx),
      act(obs, ctx) {
        const decision = oracle.act(obs, ctx);
        const action = parseAction(decision.action);
        const inputs = buildStepInputs(obs, ctx, tok, layout);
        const choice = actionChoice(action, inputs, obs, shape);
        if (!choice) out.skipped[action.action_type] = (out.skipped[action.action_type] ?? 0) + 1;
        else {
          out.steps.push({ inputs, choice, episode, step: ctx.step });
          out.packages.push(obs.foreground.package);
          out.taskApps.push(instance.template.apps);
        }
        return decision;
      },
    };
    const recorder = opts.recorder?.();
    const r = await runEpisode({ device, instance, policy: spy, ...(recorder ? { recorder, screenshots: 'half' as const } : {}) });
    out.episodes++;
    if (!r.success) out.oracleFailures++;
  }
  return out;
}

/** Writes steps as steps.jsonl in `dir`; its path. */
export function writeSteps(dir: string, steps: readonly TrainingStep[], name = 'steps.jsonl'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, steps.map(trainingStepLine).join('\n') + '\n');
  return path;
}

export interface TransformerSftEpoch {
  epoch: number;
  'loss/nll': number;
  'acc/top1': number;
  'optim/grad_norm': number;
  'optim/lr': number;
  'perf/epoch_s': number;
  steps: number;
}

export interface TransformerSftResult {
  /** The model folder written; null when the run was stopped (its signal aborted), which writes none. */
  dir: string | null;
  stoppedBy: 'done' | 'aborted';
  demonstrations: Omit<TransformerDemonstrations, 'steps' | 'packages' | 'taskApps'> & { steps: number };
  history: TransformerSftEpoch[];
  parameters: { total: number; trainable: number; text: number };
  collectS: number;
  trainS: number;
}

/** A whole SFT run of the transformer policy into `outDir` (the model folder); an aborted `signal` stops it and writes nothing. */
export async function runTransformerSft(config: TransformerSftConfig, o: {
  device: Device; outDir: string; signal?: AbortSignal; session?: TransformerSession;
  onInstance?: (i: number, n: number) => void; onEpoch?: (m: TransformerSftEpoch) => void; recorder?: () => EpisodeRecorder;
}): Promise<TransformerSftResult> {
  const session = o.session ?? TransformerSession.start({ threads: config.threads });
  const work = mkdtempSync(join(tmpdir(), 'awb-tsft-'));
  try {
    let layout: Layout;
    let tokenizerPath: string;
    let parameters: TransformerSftResult['parameters'];
    if (config.init) {
      const r = await session.request<{ parameters: TransformerSftResult['parameters'] }>('load', { dir: config.init });
      parameters = r.parameters;
      layout = readModelConfig(config.init).model.layout;
      tokenizerPath = join(config.init, 'tokenizer.json');
    } else {
      layout = shapeLayout(config.shape);
      const r = await session.request<{ parameters: TransformerSftResult['parameters']; tokenizer: string }>('create', {
        model: trainerModelConfig(config.shape), layout, seed: config.modelSeed, ...(config.tokenizer ? { tokenizer: config.tokenizer } : {}),
      });
      parameters = r.parameters;
      tokenizerPath = r.tokenizer;
    }
    const tok = WordPieceTokenizer.load(tokenizerPath);
    const t0 = performance.now();
    const demos = await collectTransformerDemonstrations(o.device, demonstrationInstances(config), tok, layout, {
      ...(o.signal ? { signal: o.signal } : {}), ...(o.onInstance ? { onInstance: o.onInstance } : {}), ...(o.recorder ? { recorder: o.recorder } : {}),
    });
    const collectS = (performance.now() - t0) / 1000;
    const stepsFile = writeSteps(work, demos.steps);
    const stopFile = join(work, 'stop');
    const onAbort = () => writeFileSync(stopFile, '');
    o.signal?.addEventListener('abort', onAbort);
    const history: TransformerSftEpoch[] = [];
    const t1 = performance.now();
    const s = config.sft;
    try {
      await session.request('sft', {
        steps: stepsFile, stop: stopFile,
        options: { epochs: s.epochs, batch_size: s.batchSize, lr: s.lr, weight_decay: s.weightDecay, max_grad_norm: s.maxGradNorm, seed: s.seed },
      }, (ev) => {
        const m = ev as unknown as TransformerSftEpoch;
        history.push(m);
        o.onEpoch?.(m);
      });
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
    }
    const trainS = (performance.now() - t1) / 1000;
    const demonstrations = { steps: demos.steps.length, skipped: demos.skipped, episodes: demos.episodes, oracleFailures: demos.oracleFailures };
    // A stopped run's model is cut short mid-epoch (or never trained): nothing is written, rather than a model no config describes.
    if (o.signal?.aborted) return { dir: null, stoppedBy: 'aborted', demonstrations, history, parameters, collectS, trainS };
    await session.request('save', {
      out: o.outDir,
      meta: { trainer: 'transformer-sft', config, demonstrations, final: history.at(-1) ?? null, createdAt: new Date().toISOString(), collectS, trainS },
    });
    return { dir: o.outDir, stoppedBy: 'done', demonstrations, history, parameters, collectS, trainS };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!o.session) await session.close();
  }
}
