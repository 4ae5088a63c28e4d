import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instantiate, instanceKey, TaskParamsError } from '../../core/tasks/instance.js';
import { getTemplate, TASKS, UnknownTemplateError } from '../../core/tasks/registry.js';
import { defineTask, fillTemplate, TASK_APPS } from '../../core/tasks/task.js';
import { SeedError } from '../../core/util/rng.js';
import { isSeedInvariant } from '../../core/tasks/splits.js';

describe('task instances', () => {
  it('are reproducible from a seed and vary across seeds', () => {
    for (const t of TASKS) {
      expect(instanceKey(instantiate(t, 11))).toBe(instanceKey(instantiate(t, 11)));
    }
    const varying = TASKS.filter((t) => !isSeedInvariant(t));
    expect(varying.length).toBeGreaterThan(TASKS.length / 2);
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 60, '3' as unknown as number])('refuse the bad seed %s with a SeedError', (seed) => {
    expect(() => instantiate(TASKS[0]!, seed)).toThrow(SeedError);
  });

  it('validate generated parameters with the template schema', () => {
    const broken = defineTask({
      id: 'BrokenTemplate', apps: ['Settings'], difficulty: 'easy', tags: [], kind: 'completion',
      template: 'Say {word}.', params: z.object({ word: z.string().min(3) }),
      generate: () => ({ word: 'no' }),
      initialize: async () => {}, check: async () => ({ ok: false, conditions: [] }), subgoals: () => [],
      *oracle() {},
    });
    expect(() => instantiate(broken, 1)).toThrow(TaskParamsError);
    expect(() => instantiate(broken, 1)).toThrow('BrokenTemplate (seed 1): generated parameters are invalid: word:');
  });

  it('name unknown templates and suggest close ones', () => {
    expect(() => getTemplate('SystemWifi')).toThrow(UnknownTemplateError);
    expect(() => getTemplate('SystemWifi')).toThrow('did you mean SystemWifiOffBluetoothOn, SystemWifiTurnOff, SystemWifiTurnOn');
  });

  it('fill instruction slots and refuse missing ones', () => {
    expect(fillTemplate('Call {name} at {n}.', { name: 'Ann', n: 5 })).toBe('Call Ann at 5.');
    expect(() => fillTemplate('Call {name}.', {})).toThrow('{name}');
  });

  it('every template is well formed', () => {
    const ids = new Set<string>();
    for (const t of TASKS) {
      expect(t.id).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(ids.has(t.id)).toBe(false);
      ids.add(t.id);
      for (const a of t.apps) expect(TASK_APPS).toContain(a);
      expect(t.tags.length).toBeGreaterThan(0);
      expect(t.kind === 'information_retrieval').toBe(t.tags.includes('information_retrieval'));
      const inst = instantiate(t, 5);
      expect(inst.instruction).not.toMatch(/\{\w+\}/);
      expect(t.subgoals(inst.params).length).toBeGreaterThan(0);
    }
  });
});
