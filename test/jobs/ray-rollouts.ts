import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../../core/policy/adapter-file.js';
import type { AdaptConfigInput } from '../../core/rl/adapt-config.js';
import { runAdaptation, type AdaptationDeps, type AdaptationReport } from '../../core/rl/adapt.js';
import { METRIC, type IterationMetrics } from '../../core/rl/grpo-loop.js';
import { trainGrpo } from '../../core/rl/train-grpo.js';
import { RayEnvServers, type RayServer } from '../../core/rollout/ray.js';
import { runPool, type RolloutJob } from '../../core/rollout/threads/run-pool.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { createRun, listEpisodes, loadTrajectory, openStore, StoreRecorder, type ReadableDB, type RunId } from '../../core/store/index.js';
import { ADAPT_APP, adaptTestBase, adaptTestConfig, metricsEssence, recordedRollouts } from '../helpers/adapt-fixture.js';
import { runCli as run } from '../helpers/cli.js';
import { GRPO_POOL, grpoTestConfig, sftWarmStart } from '../helpers/grpo-fixture.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { device } from '../helpers/simdroid.js';
import { PYTHON, REPO_ROOT } from '../python-env.js';
import type { RayHead } from './ray-head.js';
import { TransformerModel } from '../../core/policy/transformer/model.js';
import { parseTrainConfig } from '../../core/rl/config.js';
import { adaptTransformer, TransformerAdaptConfigSchema } from '../../core/rl/transformer-adapt.js';
import { trainTransformerGrpo } from '../../core/rl/transformer-grpo.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { TINY_TRANSFORMER_TEMPLATES, tinyTransformerModel } from '../helpers/transformer-fixture.js';

/**
 * Rollouts on a REAL Ray cluster (issue 35, docs/ray.md): the file's Ray head (ray-jobs.test.ts: one head per test run)
 * and a second node that joins it with `ray start --address` and resources of its own. Environment server actors
 * (resources/awb_ray) spread over both nodes run a suite split part, two GRPO iterations, an adaptation, the
 * transformer policy's GRPO and adaptation (its model folder sent to the servers) and a run whose actor is killed, each
 * compared with the same run on local worker threads or in process; then awb_ray's own Python tests on this cluster.
 */
export function rayRolloutTests(cluster: () => RayHead, tmp: { dir(name?: string): string }): void {
  describe('rollouts on a real Ray cluster: its head and a second node (issue 35)', () => {
    beforeAll(async () => {
      const node = await cluster().addNode(3, { awb_rollout_node: 3 });
      console.log(`Ray node joined ${cluster().address} in ${node.startupS} s`);
    }, 120_000);

    /** Each episode of a store's run as what must not depend on where it ran, keyed by instance. */
    const episodesOf = (db: ReadableDB, runId: number) => listEpisodes(db, { runId: runId as RunId, limit: 1000 }).rows.map((e) => {
      const t = loadTrajectory(db, e.id);
      return { key: `${t.instance.templateId}#${t.instance.seed}`, status: t.episode.status, success: t.episode.success, actions: t.steps.map((s) => s.action) };
    });

    it('a suite split part on the cluster: the outcomes and actions of local worker threads, each episode recorded here once', async () => {
      const args = ['suite', 'run', '--split', 'unseen-instance', '--part', 'test', '--policy', 'random', '--limit', '6', '--screenshots', 'none', '--json'];
      const here = join(tmp.dir(), 'local.db');
      const there = join(tmp.dir(), 'ray.db');
      const local = await run(...args, '--parallel', '2', '--db', here);
      expect(local.code, local.err).toBe(0);
      const t0 = Date.now();
      const ray = await run(...args, '--ray', cluster().address, '--envs', '2', '--db', there);
      console.log(`suite part on Ray: ${((Date.now() - t0) / 1000).toFixed(1)} s; ${ray.err}`);
      expect(ray.code, ray.err).toBe(0);
      const summary = JSON.parse(ray.out) as { run: number; episodes: number; errors: number; reruns: number; ray: { envs: number } };
      expect(summary).toMatchObject({ episodes: 6, errors: 0, reruns: 0, ray: { envs: 2, servers: 2, nodes: 2 } });
      const [a, b] = [openStore(here), openStore(there)];
      try {
        const mine = episodesOf(b, summary.run).sort((x, y) => x.key.localeCompare(y.key));
        expect(new Set(mine.map((e) => e.key)).size).toBe(6);
        expect(mine).toEqual(episodesOf(a, (JSON.parse(local.out) as { run: number }).run).sort((x, y) => x.key.localeCompare(y.key)));
        expect(mine.some((e) => e.actions.length > 0)).toBe(true);
      } finally {
        a.close();
        b.close();
      }
    }, 180_000);

    it('two GRPO iterations on the cluster: the metrics, recorded rollouts and trained parameters of local worker threads', async () => {
      const d = device();
      let init: string;
      try {
        init = await sftWarmStart(d, tmp.dir());
      } finally {
        d.close();
      }
      const local = await trainGrpo({ config: grpoTestConfig(init, { seed: 1, iterations: 2, devices: 2, rolloutWorkers: 2 }), outDir: tmp.dir(), instances: GRPO_POOL });
      const db = openStore(':memory:');
      const log: string[] = [];
      try {
        const t0 = Date.now();
        const ray = await trainGrpo({
          config: grpoTestConfig(init, { seed: 1, iterations: 2, ray: { address: cluster().address, envs: 2 } }), outDir: tmp.dir(), instances: GRPO_POOL,
          db, recordEpisodes: true, log: (m) => log.push(m),
        });
        console.log(`2 GRPO iterations on Ray: ${((Date.now() - t0) / 1000).toFixed(1)} s; ${log.join(' | ')}`);
        expect(log[0]).toMatch(/^Ray rollouts: 2 environment server\(s\) on 2 node\(s\) of /);
        const same = (m: IterationMetrics) => Object.fromEntries(
          [METRIC.rewardMean, METRIC.successRate, METRIC.lossPolicy, METRIC.lossKl, METRIC.batchSteps, METRIC.episodeLength, METRIC.envErrors].map((k) => [k, m.metrics[k]]),
        );
        expect(ray.history.map(same)).toEqual(local.history.map(same));
        expect(ray.history.map((m) => m.metrics[METRIC.reruns])).toEqual([0, 0]);
        // Seed 1 trains in both iterations (mixed outcomes in some groups), so the parameters move.
        expect(local.history.map((m) => m.metrics[METRIC.batchSteps]! > 0)).toEqual([true, true]);
        expect(Array.from(ray.model.net.params)).toEqual(Array.from(local.model.net.params));
        // Every rollout recorded here, once: 2 iterations × 2 instances × G = 4.
        expect(listEpisodes(db, { runId: ray.runId!, limit: 100 }).total).toBe(16);
      } finally {
        db.close();
      }
    }, 240_000);

    it('adaptation on the cluster: its GRPO rollouts there, the demonstrations and before/after here; the metrics, rollouts and adapter of in-process rollouts', async () => {
      const d = device();
      let policy: string;
      try {
        policy = await adaptTestBase(d, tmp.dir());
      } finally {
        d.close();
      }
      const db = openStore(':memory:');
      const log: string[] = [];
      try {
        const adapt = async (name: string, config: AdaptConfigInput, deps: Omit<AdaptationDeps, 'record'> = {}) => {
          const runId = createRun(db, { kind: 'training', name, config: { trainer: 'adapt' } }).id;
          const options = { policy, app: ADAPT_APP, config, evalSeeds: [30], evalTemplates: ['AudioRecorderSetFormat'], out: join(tmp.dir(), `${name}.json`) };
          return { runId, report: await runAdaptation(options, { ...deps, record: { db, runId } }) };
        };
        // sft+grpo: the oracle's demonstrations and SFT run here in both; only the GRPO rollouts move to the cluster.
        const over = { method: 'sft+grpo' as const, sft: { epochs: 5 } };
        const local = await adapt('local', adaptTestConfig({ rolloutWorkers: 0, devices: 1 }, over));
        const t0 = Date.now();
        const ray = await adapt('ray', adaptTestConfig({ devices: 1 }, { ...over, ray: { address: cluster().address, envs: 2 } }), { log: (m) => log.push(m) });
        console.log(`adaptation with GRPO rollouts on Ray: ${((Date.now() - t0) / 1000).toFixed(1)} s; ${log.join(' | ')}`);
        expect(log[0]).toMatch(/^Ray rollouts: 2 environment server\(s\) on 2 node\(s\) of /);
        const [a, b] = [local.report, ray.report];
        expect(metricsEssence(b.training.grpo)).toEqual(metricsEssence(a.training.grpo));
        expect(b.training.grpo.map((m) => m.metrics[METRIC.reruns])).toEqual([0, 0]);
        expect(a.training.grpo.some((m) => m.metrics[METRIC.gradNorm]! > 0)).toBe(true);
        expect([b.before, b.after, b.demonstrations]).toEqual([a.before, a.after, a.demonstrations]);
        const trained = (r: AdaptationReport) => Array.from(loadAdapter(r.adapter.path!).adapter.params);
        expect(trained(b)).toEqual(trained(a));
        const [here, there] = [recordedRollouts(db, local.runId), recordedRollouts(db, ray.runId)];
        expect(there.rollouts).toEqual(here.rollouts);
        expect(here.rollouts).toHaveLength(16);
        // The rollouts ran on the cluster servers' SimDroids, the demonstrations and before/after on this machine's.
        expect(there.serials).toEqual(new Set(['simdroid-grpo-w0', 'simdroid-grpo-w1']));
        expect(here.serials).toEqual(new Set(['simdroid-adapt-0']));
        expect(there.otherSerials).toEqual(new Set(['simdroid-adapt-0']));
      } finally {
        db.close();
      }
    }, 180_000);

    it('transformer GRPO and adaptation on the cluster (the model folder sent to its servers): the metrics, before/after and trained models of in-process rollouts', async () => {
      const model = await tinyTransformerModel(join(tmp.dir(), 'tf-sft'));
      const same = (h: IterationMetrics) => Object.fromEntries(
        [METRIC.rewardMean, METRIC.successRate, METRIC.lossPolicy, METRIC.lossKl, METRIC.batchSteps, METRIC.episodeLength, METRIC.envErrors].map((k) => [k, h.metrics[k]]),
      );
      const shaOf = async (dir: string) => {
        const m = await TransformerModel.load(dir);
        await m.close();
        return m.sha256;
      };
      const log: string[] = [];
      const instances = TINY_TRANSFORMER_TEMPLATES.map((id) => instantiate(getTemplate(id), 3));
      const grpo = async (name: string, over: Record<string, unknown>) => {
        const config = parseTrainConfig({
          init: model, seed: 2, iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 4, devices: 2, maxSteps: 6,
          curriculum: { mode: 'none' }, optimizer: { learningRate: 1e-2 }, ...over,
        });
        const out = join(tmp.dir(), name);
        const r = await trainTransformerGrpo({ config, outDir: out, instances, log: (m) => log.push(m) });
        return { history: r.history.map(same), sha256: await shaOf(out) };
      };
      const here = await grpo('tf-local', { rolloutWorkers: 0 });
      let t0 = Date.now();
      const there = await grpo('tf-ray', { ray: { address: cluster().address, envs: 2 } });
      console.log(`2 transformer GRPO iterations on Ray: ${((Date.now() - t0) / 1000).toFixed(1)} s; ${log.join(' | ')}`);
      expect(log[0]).toMatch(/^Ray rollouts: 2 environment server\(s\) on 2 node\(s\) of /);
      expect(here.history.some((h) => h[METRIC.batchSteps]! > 0), 'some group had mixed outcomes').toBe(true);
      expect(there).toEqual(here);
      expect(here.sha256).not.toBe(await shaOf(model));

      // Adaptation: its GRPO rollouts there, the before/after evaluation here.
      const adapt = async (name: string, ray: Record<string, unknown>) => {
        const config = TransformerAdaptConfigSchema.parse({ shots: 2, ray, grpo: { iterations: 2, instancesPerIteration: 1, rolloutsPerInstance: 4, maxSteps: 6, devices: 1, rolloutWorkers: 0, learningRate: 1e-2 } });
        const r = await adaptTransformer({ base: model, app: 'Clock', outDir: join(tmp.dir(), name), config, evalSeeds: [30], log: (m) => log.push(m) });
        return { history: r.history.map(same), before: r.before, after: r.after, sha256: await shaOf(r.adapter!) };
      };
      const a = await adapt('tf-adapt-local', {});
      log.length = 0;
      t0 = Date.now();
      const b = await adapt('tf-adapt-ray', { address: cluster().address, envs: 2 });
      console.log(`transformer adaptation with GRPO rollouts on Ray: ${((Date.now() - t0) / 1000).toFixed(1)} s; ${log.join(' | ')}`);
      expect(log[0]).toMatch(/^Ray rollouts: 2 environment server\(s\) on 2 node\(s\) of /);
      expect(b).toEqual(a);
      expect(a.before?.episodes).toBeGreaterThan(0);
    }, 300_000);

    it('an actor killed mid-episode: the run completes, that episode is recorded as an environment error and re-run once on the other actor, no duplicate', async () => {
      const log: string[] = [];
      const ray = await RayEnvServers.start({ address: cluster().address, envs: 2, log: (m) => log.push(m) });
      const db = openStore(':memory:');
      let endpoint: FakeChat | null = null;
      try {
        const runId = createRun(db, { kind: 'suite', name: 'actor killed', config: {} }).id;
        // Every job asks a served model for its first action, and no answer goes out before the first episode to begin
        // has had its actor killed and that actor's server is gone: the killed episode is cut mid-way however fast the
        // machine (random play raced the server, which could end the episode before its actor's death reached it).
        // After that, each answer ends its episode.
        let victim: RayServer | null = null;
        let killedOn = '';
        let victimGone: () => void = () => {};
        const cut = new Promise<void>((r) => (victimGone = r));
        endpoint = await startFakeChat((_req, res) => {
          void cut.then(() => replyChat(res, 'Reason: done.\nAction: {"action_type": "status", "goal_status": "complete"}'));
        });
        const settings = VlmPolicySettings.parse({ endpoint: { baseUrl: `${endpoint.url}/v1`, model: 'fake-vlm', retries: 0, timeoutMs: 60_000 }, format: 'androidworld' });
        const jobs: RolloutJob[] = ['ContactsAddContact', 'MarkorCreateNote', 'ClockAddAlarm', 'TasksAddTask', 'FilesCreateFolder', 'SmsSendMessage']
          .map((t, i) => ({ key: `${t}#${i}`, templateId: t, seed: i, policy: { name: 'vlm', settings } }));
        // Worker i went to server i (each takes one; ties go in order). The first episode to begin has its actor killed.
        const ran: string[] = [];
        const summary = await runPool({
          devices: 2, jobs, remote: ray.remote, screenshots: 'half',
          recorder: (job) => {
            const store = new StoreRecorder(db, runId);
            let serial = '';
            return {
              begin: (s) => {
                serial = s.device.serial;
                ran.push(`${job.key} on ${serial}`);
                store.begin(s);
                if (!victim) {
                  const server = ray.servers[Number(serial.replace('simdroid-', ''))]!;
                  victim = server;
                  killedOn = serial;
                  process.kill(server.actorPid, 'SIGKILL');
                  void gone(server.serverPid, 30_000).then(victimGone);
                }
              },
              step: (s, before) => store.step(s, before),
              end: (r, f) => store.end(r, f),
            };
          },
        });
        if (!victim) throw new Error('no episode began');
        const { rolloutUrl, serverPid } = victim as RayServer;
        const other = killedOn === 'simdroid-0' ? 'simdroid-1' : 'simdroid-0';
        expect(summary.reruns).toBe(1);
        expect([...summary.outcomes.values()].map((o) => o.ok)).toEqual(jobs.map(() => true));
        const episodes = listEpisodes(db, { runId, limit: 100 }).rows.map((e) => loadTrajectory(db, e.id));
        const errors = episodes.filter((t) => t.episode.status === 'error');
        expect(errors).toHaveLength(1);
        expect(errors[0]!.episode).toMatchObject({ terminatedBy: 'environment_error', error: { name: 'WorkerCrash', message: expect.stringMatching(new RegExp(`^worker ${killedOn} died mid-episode: RemoteWorkerError: rollout server [0-9.]+:\\d+: connection lost`)) } });
        const key = `${errors[0]!.instance.templateId}#${errors[0]!.instance.seed}`;
        // Run twice, the second time on the other server's worker; every other job once.
        expect(ran.filter((r) => r.startsWith(`${key} on`))).toEqual([`${key} on ${killedOn}`, `${key} on ${other}`]);
        expect(episodes.filter((t) => t.episode.status !== 'error').map((t) => `${t.instance.templateId}#${t.instance.seed}`).sort()).toEqual(jobs.map((j) => j.key).sort());
        expect(ray.remote.dead.map((x) => x.server)).toEqual([new URL(rolloutUrl).host]);
        expect(log.some((l) => l.startsWith(`Ray rollouts: environment server ${new URL(rolloutUrl).host} is gone`)), log.join('\n')).toBe(true);
        // The actor's death took its server along (its stdin closed).
        expect(await gone(serverPid, 15_000), 'the killed actor\'s server is gone').toBe(true);
      } finally {
        await (endpoint as FakeChat | null)?.close();
        db.close();
        await ray.close();
      }
      for (const s of ray.servers) expect(await gone(s.serverPid, 15_000), `server ${s.index} is gone after close`).toBe(true);
    }, 180_000);

    it('Python: awb_ray on this cluster (servers answer the environment protocol on both nodes, a killed actor is reported dead, too few CPUs refused) and its error paths', () => {
      const r = spawnSync(PYTHON, ['-m', 'unittest', '-v', 'tests.test_awb_ray'], {
        cwd: join(REPO_ROOT, 'resources', 'awb_ray'), encoding: 'utf8', timeout: 300_000,
        env: { ...process.env, AWB_RAY_ADDRESS: cluster().address, AWB_RAY_NODES: '2', PYTHONDONTWRITEBYTECODE: '1' },
      });
      const out = `${r.stdout}${r.stderr}`;
      if (r.status !== 0) console.log(out);
      expect(r.status).toBe(0);
      expect(out).toMatch(/Ran 8 tests/);
      expect(out).toMatch(/test_servers_listen_on_the_nodes_answer_the_environment_protocol_and_stop_with_close .* \.\.\. ok/);
    }, 300_000);
  });
}

/** Whether the process is gone (or a zombie) within `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (!alive) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
