import type { Choice } from './actions.js';
import type { StepInputs } from './inputs.js';

/**
 * One training step as the trainer reads it (one JSON object per line of steps.jsonl; the Python side is
 * awb_trainer/transformer/data.py): the network's inputs, packed, with the demonstrated or sampled choice.
 *
 *   goal / items   token ids as little-endian uint16, base64 ([goalTokens], [items, itemTokens])
 *   goalCopy / itemCopy   one byte per token: bit 0 a span may start there, bit 1 it may end there
 *   features       float32 [items, ITEM_FEATURES]; pointerMask uint8 [POINTER_TYPES, items]; typeMask uint8 [ACTION_TYPES]
 *   choice         { type, pointer?, text?: { source: goal|item|generated, … } }
 *   logProb, temperature (sampled steps), advantage (GRPO), episode and step (which episode it belongs to)
 */
export interface TrainingStep {
  inputs: StepInputs;
  choice: Choice;
  episode: number;
  step: number;
  logProb?: number;
  temperature?: number;
  advantage?: number;
  /** A replayed episode's step (AdaPR): left out of the entropy. */
  replayed?: boolean;
}

const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

function packFlags(copy: Float32Array): Uint8Array {
  const out = new Uint8Array(copy.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (copy[2 * i]! ? 1 : 0) | (copy[2 * i + 1]! ? 2 : 0);
  return out;
}

export class TokenIdRangeError extends Error {
  override name = 'TokenIdRangeError';
  constructor(readonly id: number) {
    super(`token id ${id} does not fit the training records' uint16 (vocabularies of up to 65,536 tokens)`);
  }
}

function uint16(ids: Int32Array): Uint16Array {
  const out = new Uint16Array(ids.length);
  ids.forEach((v, i) => {
    if (v < 0 || v > 0xffff) throw new TokenIdRangeError(v);
    out[i] = v;
  });
  return out;
}

/** The step as one line of steps.jsonl. */
export function trainingStepLine(s: TrainingStep): string {
  const x = s.inputs;
  return JSON.stringify({
    episode: s.episode, step: s.step, items: x.items,
    goal: b64(uint16(x.goalIds)), goalCopy: b64(packFlags(x.goalCopy)),
    itemIds: b64(uint16(x.itemIds)), itemCopy: b64(packFlags(x.itemCopy)),
    features: b64(x.itemFeatures), pointerMask: b64(Uint8Array.from(x.pointerMask)), typeMask: b64(Uint8Array.from(x.typeMask)),
    choice: s.choice,
    ...(s.logProb !== undefined ? { logProb: s.logProb } : {}),
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.advantage !== undefined ? { advantage: s.advantage } : {}),
    ...(s.replayed ? { replayed: true } : {}),
  });
}
