import type { Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import type { Candidate } from '../../episode/record.js';
import type { Policy, PolicyContext, PolicyDecision } from '../../episode/policy.js';
import { TemperatureError, type Selection } from '../builtin.js';
import {
  choiceAction, choiceLogProb, chooseAction, describeChoice, pointerRow, textRow, type Choice, type HeadLogProbs, type HeadShape,
} from './actions.js';
import { buildStepInputs, type StepInputs } from './inputs.js';
import { ACTION_TYPES, GENERATED_TEXTS } from './layout.js';
import type { TransformerModel } from './model.js';

/** What a trainer needs of one decision: the inputs the network saw, the factored choice and its log π. */
export interface TransformerStepRecord {
  inputs: StepInputs;
  choice: Choice;
  /** log π(choice) at `temperature`, as the policy decided. */
  logProb: number;
  temperature: number;
  action: Action;
}

/** Choices shown in the Agent view per step: the most probable whole actions. */
const SHOWN = 24;

/**
 * The transformer policy (docs/policy-transformer.md): each step's inputs built from the screen and the goal, the
 * network run in ONNX Runtime, and the action picked head by head, greedily or sampled at a temperature. The decision
 * carries the most probable whole actions with their probabilities under the policy (the product of the head
 * probabilities), which the Agent view lists as candidates.
 */
export class TransformerPolicy implements Policy {
  readonly name: string;
  private records: TransformerStepRecord[] = [];

  constructor(
    readonly model: TransformerModel,
    readonly selection: Selection = { mode: 'greedy' },
    readonly opts: { record?: boolean; name?: string } = {},
  ) {
    if (selection.mode === 'sample' && !(Number.isFinite(selection.temperature) && selection.temperature > 0)) {
      throw new TemperatureError(selection.temperature);
    }
    this.name = opts.name ?? 'transformer';
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision> {
    const inputs = buildStepInputs(obs, ctx, this.model.tokenizer, this.model.layout);
    const temperature = this.selection.mode === 'sample' ? this.selection.temperature : 1;
    const heads = await this.model.forward(inputs, temperature);
    const choice = chooseAction(heads, this.model.shape, inputs.items, this.selection.mode === 'sample' ? this.selection.rng : null);
    const logProb = choiceLogProb(choice, heads, this.model.shape, inputs.items);
    const action = choiceAction(choice, inputs);
    if (this.opts.record) this.records.push({ inputs, choice, logProb, temperature, action });
    return {
      action,
      thought: `${describeChoice(choice, inputs)} (p=${Math.exp(logProb).toFixed(2)}, ${this.selection.mode}, transformer)`,
      candidates: topChoices(heads, this.model.shape, inputs, SHOWN),
    };
  }

  takeRecords(): TransformerStepRecord[] {
    const out = this.records;
    this.records = [];
    return out;
  }
}

/**
 * A TransformerPolicy whose model is still loading (its ONNX Runtime session is created asynchronously): the first
 * act() waits for it, and a model that fails to load fails that act. What registry specs make.
 */
export class LoadingTransformerPolicy implements Policy {
  private inner: TransformerPolicy | null = null;

  constructor(
    private readonly model: Promise<TransformerModel>,
    private readonly selection: Selection,
    private readonly opts: { record?: boolean; name: string },
  ) {}

  get name(): string {
    return this.opts.name;
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision> {
    this.inner ??= new TransformerPolicy(await this.model, this.selection, this.opts);
    return this.inner.act(obs, ctx);
  }

  takeRecords(): TransformerStepRecord[] {
    return this.inner?.takeRecords() ?? [];
  }
}

function topIndices(lp: ArrayLike<number>, from: number, to: number, k: number): number[] {
  const idx: number[] = [];
  for (let i = from; i < to; i++) if (lp[i]! > -1e8) idx.push(i);
  return idx.sort((a, b) => lp[b]! - lp[a]!).slice(0, k);
}

/** The k most probable whole actions among the top types × top pointers × top texts, with their probabilities. */
export function topChoices(h: HeadLogProbs, shape: HeadShape, inputs: StepInputs, k: number): Candidate[] {
  const S = inputs.items;
  const out: { choice: Choice; lp: number }[] = [];
  for (const type of topIndices(h.type, 0, ACTION_TYPES.length, 6)) {
    const name = ACTION_TYPES[type]!;
    const p = pointerRow(name);
    const pointers = p >= 0 ? topIndices(h.pointer, p * S, (p + 1) * S, 5).map((i) => i - p * S) : [undefined];
    const x = textRow(name);
    const texts: (Choice['text'] | undefined)[] = x >= 0 ? topTexts(h, shape, S, x, 3) : [undefined];
    for (const pointer of pointers) {
      for (const text of texts) {
        const choice: Choice = { type, ...(pointer !== undefined ? { pointer } : {}), ...(text ? { text } : {}) };
        out.push({ choice, lp: choiceLogProb(choice, h, shape, S) });
      }
    }
  }
  // score: log π, as the builtin and ONNX policies give it; probability: π itself, so the Agent view shows it as it is
  // (a candidate without one gets a softmax over the scores, which would flatten probabilities towards uniform).
  return out.sort((a, b) => b.lp - a.lp).slice(0, k).map((c) => ({ action: choiceAction(c.choice, inputs), score: c.lp, probability: Math.exp(c.lp) }));
}

function topTexts(h: HeadLogProbs, shape: HeadShape, S: number, row: number, k: number): NonNullable<Choice['text']>[] {
  const g = shape.goalTokens * shape.maxSpan;
  const it = S * shape.itemTokens * shape.itemSpan;
  const V = GENERATED_TEXTS.length;
  const all: { lp: number; t: NonNullable<Choice['text']> }[] = [];
  for (const i of topIndices(h.goalSpan, row * g, (row + 1) * g, k)) {
    const r = i - row * g;
    all.push({ lp: h.goalSpan[i]!, t: { source: 'goal', start: Math.floor(r / shape.maxSpan), length: (r % shape.maxSpan) + 1 } });
  }
  for (const i of topIndices(h.itemSpan, row * it, (row + 1) * it, k)) {
    const r = i - row * it;
    const w = r % (shape.itemTokens * shape.itemSpan);
    all.push({ lp: h.itemSpan[i]!, t: { source: 'item', item: Math.floor(r / (shape.itemTokens * shape.itemSpan)), start: Math.floor(w / shape.itemSpan), length: (w % shape.itemSpan) + 1 } });
  }
  for (const i of topIndices(h.generated, row * V, (row + 1) * V, k)) all.push({ lp: h.generated[i]!, t: { source: 'generated', index: i - row * V } });
  return all.sort((a, b) => b.lp - a.lp).slice(0, k).map((x) => x.t);
}
