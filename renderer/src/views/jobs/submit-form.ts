import type { RemoteJobSubmit, RemoteSubmitKind } from '../../../../core/api/types.js';

/** The submit form's text fields; `submitRequest` turns them into the API's input (blank = the default). */
export interface SubmitFormState {
  trainer: string;
  kind: RemoteSubmitKind;
  name: string;
  split: string;
  part: string;
  limit: string;
  init: string;
  epochs: string;
  learningRate: string;
  groupSize: string;
}

const positiveInt = (s: string) => /^\d+$/.test(s.trim()) && Number(s) > 0;

export function submitRequest(f: SubmitFormState): { request: RemoteJobSubmit } | { error: string } {
  if (!f.trainer) return { error: 'Add a trainer first.' };
  if (f.limit.trim() && !positiveInt(f.limit)) return { error: `Instances must be a positive whole number, got ${JSON.stringify(f.limit)}` };
  if (f.epochs.trim() && !positiveInt(f.epochs)) return { error: `Epochs must be a positive whole number, got ${JSON.stringify(f.epochs)}` };
  const lr = Number(f.learningRate);
  if (f.learningRate.trim() && !(lr > 0 && lr <= 1)) return { error: `Learning rate must be in (0, 1], got ${JSON.stringify(f.learningRate)}` };
  if (f.kind === 'builtin-grpo' && !(positiveInt(f.groupSize) && Number(f.groupSize) >= 2)) return { error: `Group size must be 2 or more, got ${JSON.stringify(f.groupSize)}` };
  const config: Record<string, number> = {};
  if (f.epochs.trim()) config.epochs = Number(f.epochs);
  if (f.learningRate.trim()) config.learningRate = lr;
  return {
    request: {
      trainer: f.trainer, kind: f.kind, config, split: f.split.trim() || 'unseen-instance', part: f.part.trim() || 'train',
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
      ...(f.limit.trim() ? { limit: Number(f.limit) } : {}),
      ...(f.init.trim() ? { init: f.init.trim() } : {}),
      ...(f.kind === 'builtin-grpo' ? { groupSize: Number(f.groupSize) } : {}),
    },
  };
}
