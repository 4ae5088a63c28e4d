import { describe, expect, it } from 'vitest';
import { HashedNgramEncoder } from '../../core/policy/encoder.js';
import {
  annotateEpisodes, AnnotationError, buildRecipeLibrary, DEFAULT_ANNOTATE, discoverKeySteps, envLabels, groupTrajectories,
  lcsLabels, progActions, trajectorySimilarity,
} from '../../core/rewards/progrm/annotate.js';
import { foldLcs, formatProgAction, softLcs, softMatch, toProgAction, withPlaceholders, type ProgAction } from '../../core/rewards/progrm/lcs.js';
import { episode, step } from './progrm-fixtures.js';

const encoder = new HashedNgramEncoder({ kind: 'hashed-ngram', dim: 64, charN: 3 });
const opts = { ...DEFAULT_ANNOTATE, encoder };
const f = (x: ProgAction, y: ProgAction) => softMatch(x, y, opts);
const acts = (specs: string[]) => specs.map((s, i) => toProgAction(step(s, i)));
const hard = (x: string, y: string) => (x === y ? 1 : 0);

describe('soft LCS', () => {
  it('equals the classic LCS length with a 0/1 match and returns an increasing alignment', () => {
    const r = softLcs([...'ABCBDAB'], [...'BDCABA'], hard);
    expect(r.score).toBe(4);
    expect(r.pairs).toHaveLength(4);
    for (let k = 1; k < r.pairs.length; k++) {
      expect(r.pairs[k]![0]).toBeGreaterThan(r.pairs[k - 1]![0]);
      expect(r.pairs[k]![1]).toBeGreaterThan(r.pairs[k - 1]![1]);
    }
    for (const [i, j] of r.pairs) expect('ABCBDAB'[i]).toBe('BDCABA'[j]);
    expect(softLcs([], [...'AB'], hard)).toEqual({ score: 0, pairs: [] });
  });

  it('aligns to the earliest positions among optimal alignments', () => {
    // A reached twice: the first time is the key step; X matches the first X of the recipe.
    expect(softLcs([...'AbA'], [...'A'], hard).pairs).toEqual([[0, 0]]);
    expect(softLcs([...'X'], [...'XXZ'], hard).pairs).toEqual([[0, 0]]);
  });

  it('scores with the paper\'s soft match: type mismatch 0, INPUT by text similarity, NOTHING ε, exact otherwise', () => {
    const [tapSave, tapSave2, tapCancel, typeA, typeA2, typeB, wait, wait2, bad, bad2] = acts([
      'tap:Save', 'tap:Save', 'tap:Cancel', 'type:Name=Alice Smith', 'type:Other=Alice Smith', 'type:Name=zzz qqq', 'wait', 'wait', 'bad', 'bad',
    ]);
    expect(f(tapSave!, tapSave2!)).toBe(1);
    expect(f(tapSave!, tapCancel!)).toBe(0);
    expect(f(tapSave!, typeA!)).toBe(0);
    expect(f(typeA!, typeA2!)).toBe(1); // INPUT compares the text only
    expect(f(typeA!, typeB!)).toBe(0); // below the text threshold
    expect(f(wait!, wait2!)).toBe(0.4);
    expect(f(bad!, bad2!)).toBe(0);
    const similar = f(toProgAction(step('type:Name=buy fresh milk', 0)), toProgAction(step('type:Name=buy milk', 0)));
    expect(similar).toBeGreaterThan(0.5);
    expect(similar).toBeLessThan(1);
    // Soft LCS adds fractional matches: two NOTHINGs and one tap.
    expect(softLcs(acts(['wait', 'tap:Save', 'wait']), acts(['wait', 'tap:Save', 'wait']), f).score).toBeCloseTo(1.8, 12);
  });

  it('maps actions to (type, element, text) with instance values as placeholders', () => {
    const params = { person: { name: 'Diego Garcia', first: 'Diego' }, n: 7 };
    expect(withPlaceholders('Call Diego Garcia, Diego', params)).toBe('Call <person.name>, <person.first>');
    expect(formatProgAction(toProgAction({ ...step('tap:Diego Garcia', 0) }, params))).toBe('CLICK("<person.name>")');
    expect(formatProgAction(toProgAction(step('scroll:down', 0)))).toBe('SCROLL("down")');
    expect(toProgAction(step('bad', 0)).type).toBe('INVALID');
  });

  it('folds a group into the common subsequence of all of them (Eq. 10)', () => {
    expect(foldLcs([[...'ABCDE'], [...'AXBCE'], [...'ABYCE']], hard)).toEqual([...'ABCE']);
    expect(foldLcs([], hard)).toEqual([]);
  });
});

describe('recipes, key steps and labels', () => {
  const path = ['open:Contacts', 'tap:Add', 'type:Name=<n>', 'tap:Save', 'done'];
  const successes = [
    episode(path),
    episode(['open:Contacts', 'scroll:down', 'tap:Add', 'type:Name=<n>', 'tap:Save', 'done']),
    episode(['open:Contacts', 'tap:Add', 'wait', 'type:Name=<n>', 'tap:Save', 'done']),
    episode(['open:Settings', 'tap:Wifi', 'tap:On', 'back', 'done']),
  ];

  it('groups trajectories whose pairwise similarity exceeds θ_L', () => {
    const trajs = successes.map(progActions);
    expect(trajectorySimilarity(trajs[0]!, trajs[1]!, opts)).toBe(1);
    expect(trajectorySimilarity(trajs[0]!, trajs[3]!, opts)).toBeCloseTo(1 / 5, 12); // only 'done' in common
    const groups = groupTrajectories(trajs, { ...opts, thetaL: 0.6 });
    expect(groups.map((g) => [...g].sort())).toEqual([[0, 1, 2], [3]]);
    expect(groupTrajectories(trajs, { ...opts, thetaL: 1 })).toHaveLength(4); // strictly above
  });

  it('builds one recipe per group and finds a trajectory\'s key steps against the best one', () => {
    const library = buildRecipeLibrary([...successes, episode(['tap:x'], { success: false })], opts);
    const recipes = library.get('T')!;
    expect(recipes.map((r) => r.actions.map(formatProgAction))).toEqual([
      ['OPEN_APP("contacts")', 'CLICK("Add")', 'INPUT("Name", "<n>")', 'CLICK("Save")', 'STATUS("complete")'],
      ['OPEN_APP("settings")', 'CLICK("Wifi")', 'CLICK("On")', 'GOBACK()', 'STATUS("complete")'],
    ]);
    expect(recipes.map((r) => r.support)).toEqual([3, 1]);

    const failed = progActions(episode(['open:Contacts', 'scroll:down', 'tap:Add', 'back', 'tap:Add', 'bad']));
    const align = discoverKeySteps(failed, recipes, opts)!;
    expect(align.recipeIndex).toBe(0);
    expect(align.completion).toBeCloseTo(2 / 5, 12);
    expect(align.keySteps).toEqual([[0, 0], [2, 1]]);
    expect(lcsLabels(failed.length, align)).toEqual([0.2, 0.2, 0.4, 0.4, 0.4, 0.4]);
    expect(discoverKeySteps(failed, [], opts)).toBeNull();
    expect(lcsLabels(3, null)).toEqual([0, 0, 0]);
  });

  it('gives labels that never fall along a trajectory, reach 1 on a recipe\'s own successes, and start at 0 before the first key step', () => {
    const all = [...successes, episode(['back', 'open:Contacts', 'tap:Add', 'scroll:up', 'tap:Add'], { success: false })];
    const annotated = annotateEpisodes(all, 'lcs', opts);
    for (const a of annotated) {
      for (let t = 1; t < a.labels.length; t++) expect(a.labels[t]).toBeGreaterThanOrEqual(a.labels[t - 1]!);
      for (const y of a.labels) expect(y).toBeGreaterThanOrEqual(0);
    }
    for (const a of annotated.slice(0, 4)) expect(a.labels.at(-1)).toBe(1);
    expect(annotated[4]!.labels).toEqual([0, 0.2, 0.4, 0.4, 0.4]);
    expect(annotated[4]!.keySteps).toEqual([1, 2]);
  });

  it('takes ProgRM_Env key steps from the ground-truth subgoals, progress even among them', () => {
    const ep = episode(['open:Contacts', 'scroll:down', 'tap:Add', 'tap:Save'], { subgoalsDone: [1, 1, 2, 4], subgoalNames: ['a', 'b', 'c', 'd', 'e'] });
    expect(envLabels(ep)).toEqual({ labels: [0.2, 0.2, 0.4, 0.8], keySteps: [0, 2, 3] });
    const [a] = annotateEpisodes([ep], 'env', opts);
    expect(a!.labels).toEqual([0.2, 0.2, 0.4, 0.8]);
    expect(() => envLabels(episode(['tap:x']))).toThrow(AnnotationError);
    expect(() => envLabels(episode(['tap:x'], { subgoalsDone: [1, 2], subgoalNames: ['a'] }))).toThrow(/one entry per step/);
  });

  it('keeps tasks apart: an instance key separates seeds, a template key joins them', () => {
    const a = episode(path, { seed: 1 });
    const b = episode(['open:Settings', 'done'], { seed: 2 });
    expect(buildRecipeLibrary([a, b], opts).size).toBe(1);
    expect(buildRecipeLibrary([a, b], { ...opts, taskKey: 'instance' }).size).toBe(2);
  });
});
