import { describe, expect, it } from 'vitest';
import { TASKS } from '../../core/tasks/registry.js';
import { instanceKey } from '../../core/tasks/instance.js';
import {
  isSeedInvariant, parsePart, proposeHeldOutTemplates, parseSplit, SPLIT_DATA, SplitError, splitInstances, splitTemplates, validateSplits,
} from '../../core/tasks/splits.js';

describe('generalization splits', () => {
  it('follow the paper rules (held-out share, difficulty matching, disjoint apps and seeds)', () => {
    expect(validateSplits(TASKS)).toEqual([]);
  });

  it('hold out exactly the stratified proposal (regenerate with `awb splits propose` after adding templates)', () => {
    expect([...SPLIT_DATA.unseenTemplate.testTemplates].sort()).toEqual(proposeHeldOutTemplates(TASKS));
  });

  it('use the paper seeds', () => {
    expect(SPLIT_DATA.seeds.test).toEqual([30, 7, 1234]);
    expect(SPLIT_DATA.seeds.train).toHaveLength(16);
  });

  it('leave seed-invariant templates out of the regimes but not out of "all"', () => {
    const invariant = TASKS.filter((t) => isSeedInvariant(t));
    expect(invariant.length).toBeGreaterThan(0);
    const regime = splitTemplates(TASKS, 'unseen-instance', 'test').map((t) => t.id);
    for (const t of invariant) expect(regime).not.toContain(t.id);
    expect(splitTemplates(TASKS, 'all', 'test')).toHaveLength(TASKS.length);
  });

  it.each(['unseen-instance', 'unseen-template', 'unseen-app'] as const)('%s: train never contains a test instance', (split) => {
    const test = splitInstances(TASKS, split, 'test');
    const train = splitInstances(TASKS, split, 'train');
    expect(test.length).toBeGreaterThan(0);
    expect(train.length).toBeGreaterThan(test.length);
    const testKeys = new Set(test.map(instanceKey));
    expect(train.filter((i) => testKeys.has(instanceKey(i)))).toEqual([]);
    expect(new Set(train.map(instanceKey)).size).toBe(train.length);
  });

  it('unseen-template and unseen-app hold out templates and apps, not just seeds', () => {
    const trainT = new Set(splitTemplates(TASKS, 'unseen-template', 'train').map((t) => t.id));
    for (const t of splitTemplates(TASKS, 'unseen-template', 'test')) expect(trainT.has(t.id)).toBe(false);
    const trainApps = new Set(splitTemplates(TASKS, 'unseen-app', 'train').flatMap((t) => t.apps));
    for (const a of SPLIT_DATA.unseenApp.testApps) expect(trainApps.has(a)).toBe(false);
  });

  it('are reproducible', () => {
    const a = splitInstances(TASKS, 'unseen-app', 'test').map((i) => i.instruction);
    const b = splitInstances(TASKS, 'unseen-app', 'test').map((i) => i.instruction);
    expect(a).toEqual(b);
  });

  it('name bad splits and parts clearly', () => {
    expect(() => parseSplit('unseen-planet')).toThrow(SplitError);
    expect(() => parseSplit('unseen-planet')).toThrow('choose one of unseen-instance');
    expect(() => parsePart('validation')).toThrow('Unknown split part "validation"');
  });
});
