import { describe, expect, it } from 'vitest';
import {
  ADAGRPO_ABLATIONS,
  advantageOptions,
  curriculumOptions,
  defaultTrainConfig,
  failureCurriculumOptions,
  lossOptions,
  parseTrainConfig,
  positiveReplayOptions,
  shortestPathOptions,
  trainConfigFields,
  trainConfigHelp,
  withAblation,
  TrainConfigError,
  TrainConfigSchema,
} from '../../core/rl/config.js';

function problemsOf(input: unknown): string[] {
  try {
    parseTrainConfig(input);
  } catch (e) {
    if (e instanceof TrainConfigError) return e.problems;
    throw e;
  }
  throw new Error('config was accepted');
}

describe('parseTrainConfig', () => {
  it('fills the cited defaults from an empty config', () => {
    const c = defaultTrainConfig();
    expect(c).toMatchObject({
      split: 'unseen-instance', part: 'train', rolloutsPerInstance: 8, instancesPerIteration: 2, maxSteps: 20, temperature: 1,
      advantage: { mode: 'trajectory', scale: 'group', std: 'sample', eps: 1e-4, zeroStdGroups: 'skip' },
      loss: { clipEps: 0.2, clipEpsHigh: null, klBeta: 0.05, aggregation: 'step-mean', maxLogRatio: 20 },
      optimizer: { epochs: 1, minibatchSize: 128 },
      adagrpo: { shortestPath: { enabled: false, alpha: 1 }, positiveReplay: { enabled: false, capacity: 256, topFraction: 0.25 }, failureCurriculum: { enabled: false, failStreak: 2, cooldown: 3 } },
      curriculum: { mode: 'iterations' },
    });
    expect(parseTrainConfig(undefined)).toEqual(c);
  });

  it('keeps given values, including nested ones, and accepts JSON text', () => {
    const c = parseTrainConfig(JSON.stringify({ rolloutsPerInstance: 16, loss: { klBeta: 0.001 }, adagrpo: { shortestPath: { enabled: true } } }));
    expect(c.rolloutsPerInstance).toBe(16);
    expect(c.loss).toMatchObject({ klBeta: 0.001, clipEps: 0.2 });
    expect(c.adagrpo.shortestPath).toEqual({ enabled: true, alpha: 1 });
    expect(c.adagrpo.positiveReplay.enabled).toBe(false);
  });

  it('lists every problem, with its field path', () => {
    const problems = problemsOf({
      rolloutsPerInstance: 1,
      maxSteps: 0,
      advantage: { scale: 'median' },
      loss: { clipEps: 1.5 },
      curriculum: { window: 0.5 },
      typo: true,
    });
    expect(problems).toHaveLength(6);
    for (const path of ['rolloutsPerInstance', 'maxSteps', 'advantage.scale', 'loss.clipEps', 'curriculum.window']) {
      expect(problems.some((p) => p.startsWith(`${path}:`)), path).toBe(true);
    }
    expect(problems.some((p) => p.includes('typo'))).toBe(true);
  });

  it('refuses inconsistent fields together', () => {
    const problems = problemsOf({
      loss: { clipEps: 0.2, clipEpsHigh: 0.1 },
      curriculum: { stageAt: [0.8, 0.2] },
      adagrpo: { failureCurriculum: { failStreak: 3, removeAfter: 2 } },
    });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^loss\.clipEpsHigh/);
  });

  it('refuses text that is not JSON and a config that is not an object', () => {
    expect(problemsOf('{ nope')[0]).toMatch(/^not JSON/);
    expect(problemsOf(42)[0]).toMatch(/^\(config\)/);
  });

  it('checks the Ray section once: an address Ray takes, at most 64 SimDroids', () => {
    expect(parseTrainConfig({ ray: { address: 'head.example:6379', envs: 8 } }).ray).toEqual({ address: 'head.example:6379', envs: 8, envsPerActor: 1 });
    expect(parseTrainConfig({ ray: { address: 'ray://10.0.0.2:10001' } }).ray.address).toBe('ray://10.0.0.2:10001');
    expect(parseTrainConfig({ ray: { address: 'auto' } }).ray.address).toBe('auto');
    expect(parseTrainConfig({}).ray).toEqual({ address: null, envs: 4, envsPerActor: 1 });
    const problems = problemsOf({ ray: { address: 'head-without-port', envs: 65, cpus: 2 } });
    expect(problems).toHaveLength(3);
    expect(problems.find((p) => p.startsWith('ray.address'))).toBe("ray.address: must be HOST:PORT of the head's GCS, ray://HOST:PORT (Ray Client), or auto");
    expect(problems.some((p) => p.startsWith('ray.envs:'))).toBe(true);
    expect(problems.some((p) => p.includes('cpus'))).toBe(true);
  });

  it('says how many problems in the error message', () => {
    expect(() => parseTrainConfig({ seed: -1, iterations: 0 })).toThrow(/2 problems[\s\S]*seed[\s\S]*iterations/);
  });
});

describe('views for the algorithm modules', () => {
  it('maps the config onto the option types', () => {
    const c = parseTrainConfig({ loss: { clipEpsHigh: 0.28 }, curriculum: { mode: 'success' } });
    expect(advantageOptions(c)).toEqual({ scale: 'group', std: 'sample', eps: 1e-4, zeroStdGroups: 'skip' });
    expect(lossOptions(c)).toEqual({ clipEps: 0.2, clipEpsHigh: 0.28, klBeta: 0.05, aggregation: 'step-mean', maxLogRatio: 20, maxSteps: 20 });
    expect(lossOptions(defaultTrainConfig())).not.toHaveProperty('clipEpsHigh');
    expect(curriculumOptions(c)).toEqual({ mode: 'success', threshold: 0.6, window: 5 });
    expect(curriculumOptions(defaultTrainConfig())).toEqual({ mode: 'iterations', stageAt: [1 / 3, 2 / 3] });
    expect(curriculumOptions(parseTrainConfig({ curriculum: { mode: 'none' } }))).toEqual({ mode: 'none' });
    expect(shortestPathOptions(c)).toEqual({ alpha: 1, successReward: 1 });
    expect(positiveReplayOptions(c)).toMatchObject({ capacity: 256, weighting: 'difficulty' });
    expect(failureCurriculumOptions(c)).toEqual({ failStreak: 2, cooldown: 3, removeAfter: 6 });
  });

  it('turns the ablation rows into switches', () => {
    const c = defaultTrainConfig();
    const full = withAblation(c, 'adagrpo');
    expect([full.adagrpo.shortestPath.enabled, full.adagrpo.positiveReplay.enabled, full.adagrpo.failureCurriculum.enabled]).toEqual([true, true, true]);
    const noReplay = withAblation(c, 'no-replay');
    expect(noReplay.adagrpo.positiveReplay.enabled).toBe(false);
    expect(noReplay.adagrpo.shortestPath.enabled).toBe(true);
    expect(Object.keys(ADAGRPO_ABLATIONS)).toHaveLength(5);
    expect(parseTrainConfig(withAblation(c, 'no-failure-curriculum'))).toEqual(withAblation(c, 'no-failure-curriculum'));
  });
});

describe('help text', () => {
  it('lists every leaf field with its default and description', () => {
    const fields = trainConfigFields();
    const paths = fields.map((f) => f.path);
    expect(paths).toContain('rolloutsPerInstance');
    expect(paths).toContain('adagrpo.positiveReplay.capacity');
    expect(paths).toContain('curriculum.stageAt');
    expect(fields.every((f) => f.description.length > 10)).toBe(true);
    expect(fields.find((f) => f.path === 'advantage.scale')).toMatchObject({ default: 'group', accepts: 'group | batch | none' });
    expect(fields.find((f) => f.path === 'loss.clipEpsHigh')).toMatchObject({ default: null, accepts: 'number | null' });
    const help = trainConfigHelp();
    expect(help).toMatch(/ {2}rolloutsPerInstance {2}\(integer; default 8\)\n {6}Group size G/);
    expect(help).toContain('curriculum.stageAt  (array; default [0.3333, 0.6667])');
  });

  it('has a description on every field of the schema, nested groups included', () => {
    const groups = Object.values(TrainConfigSchema.shape);
    expect(groups.every((s) => (s.description ?? '').length > 0)).toBe(true);
  });
});
