import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAction, type ActionType } from '../actions/schema.js';
import type { Device } from '../device/device.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Policy } from '../episode/policy.js';
import type { EpisodeRecorder } from '../episode/record.js';
import { runEpisode } from '../episode/runner.js';
import { OracleTeacher } from '../episode/policies/oracle-teacher.js';
import { actionChoice, choiceAction, chooseAction, sameChoice, type HeadShape } from '../policy/transformer/actions.js';
import { buildStepInputs } from '../policy/transformer/inputs.js';
import type { Layout } from '../policy/transformer/layout.js';
import { readModelConfig, TransformerModel } from '../policy/transformer/model.js';
import { trainingStepLine, type TrainingStep } from '../policy/transformer/records.js';
import { WordPieceTokenizer } from '../policy/transformer/wordpiece.js';
import type { TaskInstance } from '../tasks/instance.js';
import { createRng, type Rng } from '../util/rng.js';
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
  /** Episodes that did not succeed: the oracle's, or the learner's when a learner acts. */
  oracleFailures: number;
  /** Per step: the foreground package and the task's apps (per-app adapters train on their app's steps). */
  packages: string[];
  taskApps: (readonly string[])[];
}

export const headShape = (l: Layout): HeadShape => ({ goalTokens: l.goalTokens, maxSpan: l.maxSpan, itemTokens: l.itemTokens, itemSpan: Math.min(l.maxSpan, l.itemTokens) });

/**
 * Who acts while the oracle labels (DAgger's data, Ross, Gordon & Bagnell 2011): the model, greedily, except that with
 * probability `beta` a step carries out the oracle's label instead. The labels are the oracle's on the screens the model
 * reached (OracleTeacher), so the steps teach recovering from the model's own mistakes, which pure demonstrations never show.
 */
export interface DaggerLearner {
  model: TransformerModel;
  beta: number;
  rng: Rng;
}

/**
 * Runs the oracle on each instance and records every step as the transformer policy's inputs and choice; with a
 * `learner`, the learner acts and the oracle only labels each step (steps it cannot label are not recorded).
 */
export async function collectTransformerDemonstrations(
  device: Device, instances: readonly TaskInstance[], tok: WordPieceTokenizer, layout: Layout,
  opts: { signal?: AbortSignal; recorder?: () => EpisodeRecorder; onInstance?: (i: number, n: number) => void; firstEpisode?: number; learner?: DaggerLearner } = {},
): Promise<TransformerDemonstrations> {
  const out: TransformerDemonstrations = { steps: [], skipped: {}, episodes: 0, oracleFailures: 0, packages: [], taskApps: [] };
  const shape = headShape(layout);
  const learner = opts.learner;
  for (const [i, instance] of instances.entries()) {
    opts.onInstance?.(i, instances.length);
    if (opts.signal?.aborted) break;
    const episode = (opts.firstEpisode ?? 0) + i;
    // Alone, the oracle acts (its decision, thought included, is what a recorder keeps); with a learner it only labels.
    const oracle = learner ? null : new OraclePolicy();
    const teacher = learner ? new OracleTeacher() : null;
    const spy: Policy = {
      name: learner ? 'dagger' : 'oracle',
      start: (ctx) => (teacher ? teacher.start(ctx) : oracle!.start(ctx)),
      async act(obs, ctx) {
        const decision = oracle ? oracle.act(obs, ctx) : null;
        const label = decision ? parseAction(decision.action) : teacher!.label(obs, ctx);
        const inputs = buildStepInputs(obs, ctx, tok, layout);
        const choice = label && actionChoice(label, inputs, obs, shape);
        if (label && !choice) out.skipped[label.action_type] = (out.skipped[label.action_type] ?? 0) + 1;
        else if (choice) {
          out.steps.push({ inputs, choice, episode, step: ctx.step });
          out.packages.push(obs.foreground.package);
          out.taskApps.push(instance.template.apps);
        }
        if (!learner) return decision!;
        if (label && learner.rng.chance(learner.beta)) return { action: label };
        const mine = chooseAction(await learner.model.forward(inputs), learner.model.shape, inputs.items, null);
        // The model's choice of the oracle's own step is carried out as the oracle wrote it, so the oracle knows its
        // step was taken (the model's form of it may differ in a detail, such as clearing the field first).
        if (choice && sameChoice(mine, choice)) return { action: label };
        return { action: choiceAction(mine, inputs) };
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

export interface DaggerRound {
  round: number;
  steps: number;
  episodes: number;
  solved: number;
}

export interface TransformerSftResult {
  /** The model folder written; null when the run was stopped (its signal aborted), which writes none. */
  dir: string | null;
  stoppedBy: 'done' | 'aborted';
  demonstrations: Omit<TransformerDemonstrations, 'steps' | 'packages' | 'taskApps'> & { steps: number };
  /** Each DAgger round: the steps the oracle labelled on the model's screens, and the episodes the model solved doing so. */
  dagger: DaggerRound[];
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
    const instances = demonstrationInstances(config);
    const t0 = performance.now();
    const demos = await collectTransformerDemonstrations(o.device, instances, tok, layout, {
      ...(o.signal ? { signal: o.signal } : {}), ...(o.onInstance ? { onInstance: o.onInstance } : {}), ...(o.recorder ? { recorder: o.recorder } : {}),
    });
    let collectS = (performance.now() - t0) / 1000;
    const steps = [...demos.steps];
    const stopFile = join(work, 'stop');
    const onAbort = () => writeFileSync(stopFile, '');
    o.signal?.addEventListener('abort', onAbort);
    const history: TransformerSftEpoch[] = [];
    const dagger: DaggerRound[] = [];
    let trainS = 0;
    const s = config.sft;
    /** SFT over every step so far; epochs are numbered on from the last pass's. */
    const pass = async (epochs: number, lr: number) => {
      const t1 = performance.now();
      const offset = history.length;
      await session.request('sft', {
        steps: writeSteps(work, steps), stop: stopFile,
        options: { epochs, batch_size: s.batchSize, lr, weight_decay: s.weightDecay, max_grad_norm: s.maxGradNorm, seed: s.seed + offset, rename: s.rename },
      }, (ev) => {
        const m = { ...(ev as unknown as TransformerSftEpoch) };
        m.epoch += offset;
        history.push(m);
        o.onEpoch?.(m);
      });
      trainS += (performance.now() - t1) / 1000;
    };
    try {
      if (s.epochs > 0) await pass(s.epochs, s.lr);
      const d = config.dagger;
      const rng = createRng(`dagger-${s.seed}`);
      for (let round = 1; d && round <= d.rounds && !o.signal?.aborted; round++) {
        const t2 = performance.now();
        const roundDir = join(work, `round-${round}`);
        await session.request('save', { out: roundDir, meta: { trainer: 'transformer-sft', round } });
        const model = await TransformerModel.load(roundDir);
        let more: TransformerDemonstrations;
        try {
          more = await collectTransformerDemonstrations(o.device, instances, tok, layout, {
            ...(o.signal ? { signal: o.signal } : {}), firstEpisode: instances.length * round,
            learner: { model, beta: d.beta, rng: rng.fork(`round-${round}`) },
          });
        } finally {
          // The folder stays until the run ends: the trainer reads its tokenizer from the folder it last saved to.
          await model.close();
        }
        steps.push(...more.steps);
        collectS += (performance.now() - t2) / 1000;
        dagger.push({ round, steps: more.steps.length, episodes: more.episodes, solved: more.episodes - more.oracleFailures });
        if (o.signal?.aborted) break;
        await pass(d.epochs, d.lr ?? s.lr);
      }
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
    }
    const demonstrations = { steps: demos.steps.length, skipped: demos.skipped, episodes: demos.episodes, oracleFailures: demos.oracleFailures };
    // A stopped run's model is cut short mid-epoch (or never trained): nothing is written, rather than a model no config describes.
    if (o.signal?.aborted) return { dir: null, stoppedBy: 'aborted', demonstrations, dagger, history, parameters, collectS, trainS };
    await session.request('save', {
      out: o.outDir,
      meta: { trainer: 'transformer-sft', config, demonstrations, dagger, final: history.at(-1) ?? null, createdAt: new Date().toISOString(), collectS, trainS },
    });
    return { dir: o.outDir, stoppedBy: 'done', demonstrations, dagger, history, parameters, collectS, trainS };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!o.session) await session.close();
  }
}
