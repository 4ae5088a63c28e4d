import { describe, expect, it } from 'vitest';
import { runPool, PoolError, type RolloutJob } from '../../core/rollout/threads/run-pool.js';
import type { EpisodeRecorder } from '../../core/episode/record.js';

const job = (templateId: string, seed: number, policy: RolloutJob['policy'] = { name: 'oracle' }): RolloutJob => ({ key: `${templateId}#${seed}`, templateId, seed, policy });

describe('parallel rollouts', () => {
  it('runs jobs first come first served over several devices, recording each episode in order', async () => {
    const jobs = [
      job('SystemWifiTurnOff', 1), job('ContactsAddContact', 2), job('MarkorCreateNote', 3), job('ClockAddAlarm', 4),
      job('TasksAddTask', 5), job('SmsSendMessage', 6),
    ];
    const log = new Map<string, string[]>();
    const recorder = (j: RolloutJob): EpisodeRecorder => {
      const events: string[] = [];
      log.set(j.key, events);
      return {
        begin: (s) => { events.push(`begin ${s.templateId}`); },
        step: (s, before) => { events.push(`step ${s.index}${before.screenshot ? ' png' : ''}`); },
        end: (r) => { events.push(`end ${r.status}`); },
      };
    };
    const summary = await runPool({ devices: 2, jobs, recorder, screenshots: 'half' });
    expect(summary.outcomes.size).toBe(jobs.length);
    for (const j of jobs) {
      const o = summary.outcomes.get(j.key)!;
      expect(o.ok && o.result.success, j.key).toBe(true);
      const events = log.get(j.key)!;
      expect(events[0]).toBe(`begin ${j.templateId}`);
      expect(events.at(-1)).toBe('end success');
      const stepEvents = events.slice(1, -1);
      expect(stepEvents).toEqual(stepEvents.map((_, i) => `step ${i} png`));
    }
    const devices = new Set([...summary.outcomes.values()].map((o) => o.device));
    expect(devices.size).toBe(2);
    expect(summary.steps).toBe([...summary.outcomes.values()].reduce((n, o) => n + (o.ok ? o.result.steps.length : 0), 0));
  });

  it('reproduces the same episodes as a single device', async () => {
    const jobs = [job('SystemWifiTurnOff', 1, { name: 'random' }), job('FilesCreateFolder', 7, { name: 'random' })];
    const a = await runPool({ devices: 2, jobs });
    const b = await runPool({ devices: 1, jobs });
    for (const j of jobs) {
      const ra = a.outcomes.get(j.key)!;
      const rb = b.outcomes.get(j.key)!;
      expect(ra.ok && rb.ok).toBe(true);
      if (ra.ok && rb.ok) expect(ra.result.steps.map((s) => s.description)).toEqual(rb.result.steps.map((s) => s.description));
    }
  });

  it('reports a bad job and goes on with the rest', async () => {
    const summary = await runPool({ devices: 1, jobs: [job('NoSuchTemplate', 1), job('SystemWifiTurnOn', 1)] });
    const bad = summary.outcomes.get('NoSuchTemplate#1')!;
    expect(bad).toMatchObject({ ok: false, error: { name: 'UnknownTemplateError' } });
    expect(summary.outcomes.get('SystemWifiTurnOn#1')).toMatchObject({ ok: true, result: { success: true } });
  });

  it('replays recorded actions on a worker', async () => {
    const summary = await runPool({ devices: 1, jobs: [{ key: 'r', templateId: 'SystemWifiTurnOn', seed: 0, policy: { name: 'replay', actions: [{ action_type: 'navigate_home' }] } }] });
    expect(summary.outcomes.get('r')).toMatchObject({ ok: true, result: { terminatedBy: 'policy_done', steps: [{ description: 'Go to the home screen' }] } });
  });

  it('refuses bad pool settings with clear errors', async () => {
    await expect(runPool({ devices: 0, jobs: [] })).rejects.toThrow(PoolError);
    await expect(runPool({ devices: 2, jobs: [job('SystemWifiTurnOn', 1), job('SystemWifiTurnOn', 1)] })).rejects.toThrow('Duplicate job key');
  });
});
