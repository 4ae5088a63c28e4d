import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEpisode } from '../../core/episode/runner.js';
import { VlmPolicy, vlmFormat, type ChatMessage } from '../../core/policy/vlm/index.js';
import { prepareBundle } from '../../core/remote-jobs/prepare.js';
import { readTar } from '../../core/util/tar.js';
import { createRun, openStore, StoreRecorder, type EpisodeId, type WritableDB } from '../../core/store/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { requirePython, TRAINER_ROOT } from '../python-env.js';
import { tempDir } from '../store/helpers.js';

/**
 * Offline VLM jobs train on what the policy was sent and what the model answered (issue 31). Recorded qwen-mobile-use
 * episodes (a stand-in endpoint answers with `<tool_call>` replies; a person overrides one step) go through
 * `prepareBundle` for vlm-sft, and the trainer's own sample builder (vlm_samples.py, in .venv) is the judge: each
 * target is the model's reply, or the override in the model's format, and each chat the request that was sent.
 */
const REPLY = (k: number) => `Step ${k}: I open the clock.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}}\n</tool_call>`;

let tmp: ReturnType<typeof tempDir>;
let fake: FakeChat;
let db: WritableDB;
let episode: EpisodeId;
let overrideText = '';
const sent: ChatMessage[][] = [];

beforeAll(async () => {
  tmp = tempDir('awb-vlm-targets-');
  let n = 0;
  fake = await startFakeChat((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: REPLY(n++) } }], usage: { prompt_tokens: 50, completion_tokens: 9 } }));
  });
  db = openStore(join(tmp.dir, 'store.db'));
  const run = createRun(db, { kind: 'single', name: 'targets' }).id;
  const device = new SimDroid({ serial: 'simdroid-vlm-targets' });
  try {
    const policy = new VlmPolicy({ endpoint: { baseUrl: `${fake.url}/v1`, model: 'm', retries: 0 }, format: 'qwen-mobile-use' }, {
      onRequest: (_k, m) => sent.push(structuredClone(m as ChatMessage[])),
    });
    const recorder = new StoreRecorder(db, run);
    await runEpisode({
      device, instance: instantiate(getTemplate('ClockStopwatchRun'), 0), policy, screenshots: 'half', maxSteps: 3, recorder,
      hooks: {
        beforeAct: async (p) => {
          if (p.index !== 1) return;
          // A person taps the first clickable element by its index: the trainer must learn it as a tool call at that
          // element's centre, in the frame of the screenshot that was sent.
          const el = p.obs.elements.find((e) => e.node.clickable)!;
          const action = { action_type: 'click' as const, index: el.ordinal };
          overrideText = vlmFormat('qwen-mobile-use').render(action, { ...policy.geometry(p.obs), obs: p.obs });
          return { override: action };
        },
      },
    });
    episode = recorder.episodeId!;
  } finally {
    device.close();
  }
}, 120_000);

afterAll(async () => {
  db?.close();
  await fake?.close();
  tmp?.cleanup();
});

/** The trainer's samples of a bundle: vlm_samples.samples() run in the trainer's Python. */
function trainerSamples(bundle: string): Array<{ target: string; messages: Array<{ role: string; content: unknown }>; images: number[]; promptTokens: number | null }> {
  const code = 'import json, sys\nfrom awb_trainer.bundle import Bundle\nfrom awb_trainer.jobs.vlm_samples import samples\n'
    + 'with Bundle(sys.argv[1]) as b:\n  rows = samples(b)\n'
    + 'print(json.dumps([{"target": r["target"], "messages": r["messages"], "images": [len(i) for i in r["images"]], "promptTokens": r["promptTokens"]} for r in rows]))';
  const r = spawnSync(requirePython(), ['-c', code, bundle], { encoding: 'utf8', cwd: TRAINER_ROOT, env: { ...process.env, PYTHONPATH: TRAINER_ROOT } });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as ReturnType<typeof trainerSamples>;
}

describe('vlm-sft on recorded qwen-mobile-use episodes', () => {
  it('trains on the <tool_call> replies the model gave and the override written as one, each under the request that was sent', async () => {
    const file = join(tmp.dir, 'bundle.tar');
    const prepared = await prepareBundle({ kind: 'vlm-sft', file, createdAt: 0, seed: 0, episodes: { db, ids: [episode] } });
    // What the CLI prints: the steps trained on, not steps.jsonl's 0.
    expect(prepared.holds).toBe('3 steps (2 model replies, 1 overrides in the model\'s format) from 1 episodes');
    const rows = trainerSamples(file);
    expect(rows.map((r) => r.target)).toEqual([REPLY(0), overrideText, REPLY(2)]);
    for (const r of rows) expect(r.target).toMatch(/<tool_call>\n\{"name": ?"mobile_use", ?"arguments": ?\{"action": ?"(open|click)"/);
    expect(overrideText).toMatch(/"action":"click","coordinate":\[\d+,\d+\]/);
    // The chat is the request each step sent (image parts as the trainer's {"type": "image"}), with the server's count.
    rows.forEach((r, k) => {
      const expected = sent[k]!.map((m) => ({
        role: m.role,
        content: typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p : { type: 'image' })),
      }));
      expect(r.messages).toEqual(expected);
      expect(r.images).toHaveLength(1);
      expect(r.promptTokens).toBe(50);
    });
    // The bundle's steps name the screenshot each image shows.
    const line = JSON.parse(readTar(readFileSync(file)).get('episodes.jsonl')!.toString('utf8').trim()) as { steps: Array<{ index: number; messages: Array<{ content: unknown }> }> };
    expect(line.steps.map((s) => (s.messages[1]!.content as Array<{ type: string; step?: number }>).find((p) => p.type === 'image'))).toEqual([0, 1, 2].map((step) => ({ type: 'image', step })));
  });

  it('episodes of a policy that sent no request are refused with the reason', async () => {
    const run = createRun(db, { kind: 'single', name: 'oracle' }).id;
    const device = new SimDroid({ serial: 'simdroid-vlm-targets-oracle' });
    let id: EpisodeId;
    try {
      const { OraclePolicy } = await import('../../core/episode/policies/oracle.js');
      const recorder = new StoreRecorder(db, run);
      await runEpisode({ device, instance: instantiate(getTemplate('ClockStopwatchRun'), 0), policy: new OraclePolicy(), screenshots: 'half', recorder });
      id = recorder.episodeId!;
    } finally {
      device.close();
    }
    const file = join(tmp.dir, 'oracle.tar');
    writeFileSync(file, '');
    await expect(prepareBundle({ kind: 'vlm-sft', file, createdAt: 0, seed: 0, episodes: { db, ids: [id] } }))
      .rejects.toThrow(/has a recorded VLM request and reply \(episode \d+ step 0: no recorded VLM request/);
  });
});

describe("AndroidWorld's agents' episodes in the store and in vlm-sft bundles", () => {
  /** Texts in the shape AndroidWorld's agents read from their files (the real ones: vlm-presets-androidworld.test.ts). */
  const texts = {
    action: 'Goal: {goal}\nHistory:\n{history}\nElements:\n{ui_elements}{additional_guidelines}\nAnswer:', summary: 'Goal: {goal}\n{before_elements}\n{after_elements}\n{action} {reason}',
    noHistory: 'none yet', notAvailable: 'none', selected: 'Did {action}: {summary}', notFormatted: 'a', notParsed: 'b', indexOutOfRange: 'c', executeFailed: 'd',
  };

  async function record(preset: 'androidworld-t3a' | 'androidworld-m3a'): Promise<EpisodeId> {
    const { VlmDemonstrator } = await import('../../core/policy/vlm/demonstrator.js');
    const { OraclePolicy } = await import('../../core/episode/policies/oracle.js');
    const action = preset === 'androidworld-t3a' ? texts.action.replace('{ui_elements}', '{ui_elements_description}') : texts.action;
    const policy = new VlmDemonstrator(new OraclePolicy(), { preset, promptTemplate: { file: 'x' }, promptTexts: { ...texts, action } });
    const recorder = new StoreRecorder(db, createRun(db, { kind: 'single', name: preset }).id);
    const device = new SimDroid({ serial: `simdroid-vlm-targets-${preset}` });
    try {
      await runEpisode({ device, instance: instantiate(getTemplate('ClockStopwatchRun'), 0), policy, screenshots: 'half', maxSteps: 3, recorder });
    } finally {
      device.close();
    }
    return recorder.episodeId!;
  }

  it('keep each summary call and the marks through export and import; M3A\'s drawn screenshots are not trained on, T3A\'s action calls are', async () => {
    const { exportEpisodes, importEpisodes, loadTrajectory } = await import('../../core/store/index.js');
    const m3a = await record('androidworld-m3a');
    const t3a = await record('androidworld-t3a');
    const dir = join(tmp.dir, 'aw-export');
    exportEpisodes(db, [m3a], dir);
    const copy = openStore(join(tmp.dir, 'aw-import.db'));
    try {
      const [id] = (await importEpisodes(copy, dir)).imported;
      const step1 = loadTrajectory(copy, id!).steps[1]!.request!;
      expect(step1).toEqual(loadTrajectory(db, m3a).steps[1]!.request);
      expect(step1.summary).toMatchObject({ step: 0, reply: expect.any(String) });
      expect(step1.summary!.messages[0]!.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^Goal: /) }, { type: 'image', step: 0, marks: 'set-of-marks' }, { type: 'image', step: 1, marks: 'set-of-marks+after' },
      ]);
      expect(step1.messages[0]!.content).toEqual([expect.objectContaining({ type: 'text' }), { type: 'image', step: 1 }, { type: 'image', step: 1, marks: 'set-of-marks' }]);
    } finally {
      copy.close();
    }
    const file = join(tmp.dir, 'aw.tar');
    await expect(prepareBundle({ kind: 'vlm-sft', file, createdAt: 0, seed: 0, episodes: { db, ids: [m3a] } }))
      .rejects.toThrow(/screenshot with marks drawn on it \(androidworld-m3a's set-of-marks\), which the trainer does not draw/);
    const prepared = await prepareBundle({ kind: 'vlm-sft', file, createdAt: 0, seed: 0, episodes: { db, ids: [t3a] } });
    expect(prepared.holds).toMatch(/^3 steps \(3 model replies/);
    const rows = trainerSamples(file);
    expect(rows.map((r) => r.images.length)).toEqual([0, 0, 0]);
    expect(rows[2]!.messages[0]!.content).toEqual([{ type: 'text', text: expect.stringContaining('Did {"action_type": ') }]);
  }, 120_000);
});
