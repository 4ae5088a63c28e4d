import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobInfo, PolicyInfo, TrainerKind } from '../../core/api/types.js';
import { TRAINER_KINDS } from '../../core/api/training-types.js';
import { baseChoices } from '../../renderer/src/store/slices/adaptation-model.js';
import { currentJob, isTrainingJob, TRAINERS } from '../../renderer/src/store/slices/training.js';
import { configFromForm, defaultFormValues, applyPreset, newestCheckpoint } from '../../renderer/src/views/training/config-form.js';
import { etaSeconds, progressUnit } from '../../renderer/src/views/training/health.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';

/** The renderer's side of the transformer policy's runs (issue 37): its trainers in the Training slice, its model folders as choices. */
const job = (kind: JobInfo['kind'], state: JobInfo['state']): JobInfo => ({
  id: `job-${kind}`, kind, state, runId: 1, iteration: 0, total: 1, detail: null, phase: null, checkpoint: null, error: null, config: {}, startedAt: 0, endedAt: null,
});
const policy = (name: string, kind: PolicyInfo['kind'], trainable: boolean): PolicyInfo =>
  ({ name: name as PolicyInfo['name'], description: '', kind, trainable, evaluable: true, checkpoint: name.slice('checkpoint:'.length), app: null });

describe('the transformer trainers in the renderer', () => {
  it('knows every trainer core has, counting SFT in epochs and GRPO in iterations', () => {
    expect([...TRAINERS].sort()).toEqual([...TRAINER_KINDS].sort());
    expect(TRAINERS.map((k: TrainerKind) => progressUnit(k))).toEqual(['iteration', 'epoch', 'epoch', 'iteration']);
    expect(etaSeconds('transformer-sft', [{ iteration: 1, metrics: { 'perf/epoch_s': 2 } }], 1, 4)).toBe(6);
  });

  it('a transformer job is a training job (its bar and charts), an adaptation is not', () => {
    expect(isTrainingJob(job('transformer-sft', 'running'))).toBe(true);
    expect(isTrainingJob(job('transformer-grpo', 'finished'))).toBe(true);
    expect(isTrainingJob(job('adapt', 'running'))).toBe(false);
    expect(currentJob({ trainingJobs: [job('transformer-grpo', 'finished'), job('adapt', 'running')] })?.kind).toBe('transformer-grpo');
  });

  it('offers a transformer model folder as an adaptation base beside the builtin checkpoints, not a VLM', () => {
    const choices = [policy('checkpoint:sft-1', 'checkpoint', true), policy('checkpoint:transformer-sft-1', 'transformer', false), policy('vlm:x', 'vlm', false)];
    expect(baseChoices(choices).map((p) => p.name)).toEqual(['checkpoint:sft-1', 'checkpoint:transformer-sft-1']);
  });
});

describe('the Training slice with the transformer trainers, against the real workbench', () => {
  let bridged: BridgedWorkbench;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-transformer-slice-');
  });
  afterAll(async () => {
    await bridged.close();
  });

  it('loads the transformer trainers’ forms; the smoke preset sends the smallest shape, 1 epoch', async () => {
    const { store } = bridged;
    await store.getState().loadTraining();
    const d = store.getState().trainDescriptions['transformer-sft']!;
    expect(d.fields.some((f) => f.path === 'shape.width')).toBe(true);
    const smoke = d.presets.find((p) => p.name === 'smoke')!;
    const values = applyPreset(defaultFormValues(d.fields), d.fields, smoke, null);
    expect(configFromForm(values, d.fields)).toMatchObject({ shape: { width: 16, screenLayers: 1 }, sft: { epochs: 1 }, seeds: [0] });
    expect(store.getState().trainDescriptions['transformer-grpo']!.fields.some((f) => f.path === 'init')).toBe(true);
    // "Use as init" on a transformer model folder switches the form to transformer GRPO
    store.getState().useAsInit('transformer-sft-1', 'transformer-grpo');
    expect(store.getState().trainingKind).toBe('transformer-grpo');
    expect(store.getState().takePendingInit()).toBe('checkpoint:transformer-sft-1');
    expect(newestCheckpoint([])).toBeNull();
  });

  it('a bad transformer config is refused at its fields, and no job starts', async () => {
    const { store } = bridged;
    store.getState().setTrainingKind('transformer-sft');
    expect(await store.getState().startTraining({ shape: { width: 3 }, tokenizer: '/nope.json' })).toBeUndefined();
    expect(Object.keys(store.getState().trainingErrors)).toContain('shape.width');
    expect(store.getState().trainingJobs).toEqual([]);
  });
});
