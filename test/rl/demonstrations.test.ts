import { afterAll, describe, expect, it } from 'vitest';
import { parseAction } from '../../core/actions/schema.js';
import { boundsCenter } from '../../core/a11y/ui-tree.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import type { Policy } from '../../core/episode/policy.js';
import { runEpisode } from '../../core/episode/runner.js';
import { createModel } from '../../core/policy/builtin.js';
import { collectDemonstrations, DemonstrationSourceError, storedDemonstrations } from '../../core/rl/demonstrations.js';
import { createRun, openStore, StoreRecorder } from '../../core/store/index.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { instantiate, type TaskInstance } from '../../core/tasks/instance.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

/** A person in the UI's manual mode, played by the oracle: taps land on screen coordinates, not element indices. */
function handRecorded(): Policy {
  const oracle = new OraclePolicy();
  return {
    name: 'manual',
    start: (ctx) => oracle.start(ctx),
    act(obs, ctx) {
      const decision = oracle.act(obs, ctx);
      const a = parseAction(decision.action);
      if (a.action_type !== 'click' || a.index === undefined) return decision;
      return { action: { action_type: 'click', ...boundsCenter(obs.elements[a.index]!.node.bounds) } };
    },
  };
}

describe('demonstrations for adapters', () => {
  const db = openStore(':memory:');
  const run = createRun(db, { kind: 'suite', name: 'adapt demos', config: {} });
  const record = async (instance: TaskInstance, policy: Policy) => {
    const recorder = new StoreRecorder(db, run.id);
    const r = await runEpisode({ device: d, instance, policy, recorder });
    return { id: recorder.episodeId!, success: r.success };
  };
  const model = createModel(createRng('demos/model'));
  const AR = 'com.dimowner.audiorecorder';

  it('rebuild a hand-recorded episode\'s steps as the same demonstrations the oracle gives live', async () => {
    const instance = instantiate(getTemplate('AudioRecorderRecordAudioWithFileName'), 100);
    const live = await collectDemonstrations(d, [instance], model);
    const stored = await record(instance, handRecorded());
    expect(stored.success).toBe(true);
    const rebuilt = storedDemonstrations(db, [stored.id], model, AR);
    expect(rebuilt.episodes).toBe(1);
    expect(live.demos.length).toBeGreaterThan(3);
    // Coordinate taps are matched through the element they touched, so every live step comes back.
    expect(rebuilt.demos.map((x) => [x.package, x.chosen, x.n, x.kind])).toEqual(live.demos.map((x) => [x.package, x.chosen, x.n, x.kind]));
    rebuilt.demos.forEach((x, i) => expect(Array.from(x.features)).toEqual(Array.from(live.demos[i]!.features)));
    expect(rebuilt.demos[0]!.package).not.toBe(AR); // the first step is on the home screen
    expect(rebuilt.demos.slice(1).every((x) => x.package === AR && x.taskApps.includes('Audio Recorder'))).toBe(true);
  });

  it('refuse failed, missing and off-app episodes, listing every one', async () => {
    const failed = await record(instantiate(getTemplate('AudioRecorderRecordAudio'), 101), new RandomPolicy(createRng('demos/random')));
    expect(failed.success).toBe(false);
    const offApp = await record(instantiate(getTemplate('SystemWifiTurnOn'), 1), new OraclePolicy());
    expect(offApp.success).toBe(true);
    try {
      storedDemonstrations(db, [failed.id, 987654, offApp.id], model, AR);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DemonstrationSourceError);
      const p = (e as DemonstrationSourceError).problems;
      expect(p).toHaveLength(3);
      expect(p[0]).toMatch(new RegExp(`episode ${failed.id} \\(random, AudioRecorderRecordAudio\\) did not succeed`));
      expect(p[1]).toMatch(/episode 987654: .*987654/);
      expect(p[2]).toMatch(new RegExp(`episode ${offApp.id} \\(SystemWifiTurnOn\\) never shows ${AR}`));
    }
  });
});
