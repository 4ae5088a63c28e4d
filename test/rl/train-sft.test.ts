import { describe, expect, it } from 'vitest';
import { demonstrationInstances, parseTrainSftConfig, TrainSftConfigError } from '../../core/rl/train-sft.js';
import { instanceKey } from '../../core/tasks/instance.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { TASKS } from '../../core/tasks/registry.js';

describe('parseTrainSftConfig', () => {
  it('fills defaults from the schemas', () => {
    const c = parseTrainSftConfig({});
    expect(c).toMatchObject({ split: 'unseen-instance', part: 'train', modelSeed: 0, hidden: 24, sft: { epochs: 30, batchSize: 32 } });
  });

  it('lists every problem at once, schema and template ids together', () => {
    let error: unknown;
    try {
      parseTrainSftConfig({ split: 'unseen-template', templates: ['NoSuchTemplate', 'ClockAddAlarm'], sft: { epochs: 0 }, extra: 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TrainSftConfigError);
    const problems = (error as TrainSftConfigError).problems;
    expect(problems.some((p) => p.startsWith('sft.epochs'))).toBe(true);
    expect(problems.some((p) => p.includes('extra'))).toBe(true);
    // schema problems stop the template check (the split is not known to be valid); a valid schema lists template problems
    expect(() => parseTrainSftConfig({ split: 'unseen-template', templates: ['NoSuchTemplate', 'ClockAddAlarm'] })).toThrow(
      /"NoSuchTemplate" is not a template of unseen-template\/train[\s\S]*"ClockAddAlarm" is not a template of unseen-template\/train/,
    );
  });

  it('never takes a test instance of the split as a demonstration', () => {
    const test = new Set(splitInstances(TASKS, 'unseen-instance', 'test').map(instanceKey));
    // seed 30 is an evaluation seed: those instances are dropped
    const inst = demonstrationInstances(parseTrainSftConfig({ templates: ['AudioRecorderRecordAudio', 'CalendarAddEvent'], seeds: [30, 1, 2] }));
    expect(inst.length).toBeGreaterThan(0);
    expect(inst.every((i) => !test.has(instanceKey(i)))).toBe(true);
    expect(inst.some((i) => i.seed === 30)).toBe(false);
    expect(new Set(inst.map((i) => i.template.id))).toEqual(new Set(['AudioRecorderRecordAudio', 'CalendarAddEvent']));
  });
});
