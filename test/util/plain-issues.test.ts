import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { PLAIN_ISSUES, shownValue } from '../../core/util/plain-issues.js';
import { fieldLabel, issueSentence } from '../../renderer/src/store/issues.js';
import { parseTrainConfig, TrainConfigError } from '../../core/rl/config.js';
import { ApiInputError, parseInput } from '../../core/api/inputs.js';

const Schema = z.strictObject({
  batchSize: z.int().min(1), lr: z.number().positive().max(1), mode: z.enum(['fast', 'slow']), name: z.string().min(1).max(3),
  url: z.url(), tags: z.array(z.string()).min(1), hash: z.string().regex(/^[0-9a-f]+$/, 'a hex digest'), port: z.union([z.string(), z.number()]),
});
const messages = (v: unknown) => {
  const r = Schema.safeParse(v, PLAIN_ISSUES);
  if (r.success) throw new Error('expected issues');
  return Object.fromEntries(r.error.issues.map((i) => [i.path.join('.') || '(top)', i.message]));
};

describe('zod problems in plain words', () => {
  it('words each kind of problem as what the field must be, with the value given; a schema\'s own message wins', () => {
    expect(messages({ batchSize: 0, lr: 0, mode: 'medium', name: '', url: 'nope', tags: [], hash: 'XYZ', port: true, extra: 1 })).toEqual({
      batchSize: 'must be a whole number ≥ 1, got 0',
      lr: 'must be a number > 0, got 0',
      mode: 'must be one of "fast", "slow"; got "medium"',
      name: 'must not be empty',
      url: 'must be a URL (like http://host:8000), got "nope"',
      tags: 'must list at least one',
      hash: 'a hex digest',
      port: 'must be text or a number, got true',
      '(top)': 'unknown field "extra"',
    });
    expect(messages({ batchSize: 2.5, lr: 3, mode: 'fast', name: 'abcd', url: 'http://x', tags: ['a'], hash: 'ab', port: 1 })).toEqual({
      batchSize: 'must be a whole number, got 2.5', lr: 'must be a number ≤ 1, got 3', name: 'must be at most 3 characters, got 4',
    });
    expect(messages({ lr: 0.1, mode: 'fast', name: 'a', url: 'http://x', tags: ['a'], hash: 'ab', port: 1 })).toEqual({ batchSize: 'is required' });
  });

  it('puts the field\'s name in front for the place next to the field', () => {
    expect(fieldLabel('batchSize')).toBe('Batch size');
    expect(fieldLabel('loss.clipEps')).toBe('Clip eps');
    expect(fieldLabel('episodeIds.3')).toBe('Episode ids');
    expect(issueSentence('batchSize', 'must be a whole number ≥ 1, got 0')).toBe('Batch size must be a whole number ≥ 1, got 0');
    expect(issueSentence('hash', 'a hex digest')).toBe('Hash: a hex digest');
    expect(issueSentence('', 'unknown field "x"')).toBe('Unknown field "x"');
  });

  it('is what the trainer config and the API input say (CLI and UI alike), not zod\'s wording', () => {
    const config = (() => { try { parseTrainConfig({ optimizer: { minibatchSize: 0 } }); } catch (e) { return e as TrainConfigError; } throw new Error('accepted'); })();
    expect(config).toBeInstanceOf(TrainConfigError);
    expect(config.message).toContain('optimizer.minibatchSize: must be a whole number ≥ 1, got 0');
    expect(config.message).not.toMatch(/Too small|expected number/);
    expect(() => parseInput('startEvaluation', { policy: 'p', limit: 0 })).toThrow(ApiInputError);
    expect(() => parseInput('startEvaluation', { policy: 'p', limit: 0 })).toThrow('startEvaluation: invalid input: limit: must be a whole number ≥ 1, got 0');
  });

  it('quotes any input, even one String() cannot convert (the bridge fuzz found it)', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.toJSON = () => undefined;
    expect(shownValue(bare)).toBe('[object Object]');
    expect(shownValue({ toString: 1, valueOf: 1, toJSON: () => undefined })).toBe('[object Object]');
    expect(shownValue({ a: 1 })).toBe('{"a":1}');
  });
});
