/**
 * Rollouts on Ray (issue 35): steps/s of the same jobs on N local worker threads and on N environment server actors of
 * a real Ray cluster on this machine (1, 2, 4), and the per-episode overhead of the Ray path.
 *   npm run bench -- ray-rollouts
 * Throughput: every template × 1 seed with the random policy (every episode runs to its step budget), no screenshots,
 * no recorder (results only, as GRPO's rollouts without recording), each N run twice per side, alternating local and
 * Ray so both see the same load; "after start-up" leaves out the time until every worker booted its SimDroid. The
 * actors' start (Python worker, `awb env serve`) is timed apart: a run pays it once. Overhead: one worker, 200 short
 * oracle episodes back to back, the time between consecutive episode ends, local against Ray, results only and with
 * every step forwarded to a recorder (as a suite records). The head: test/jobs/ray-head.ts, loopback, 4 logical CPUs.
 * Besides wall time, each run's CPU time per step: what a busy, shared machine's scheduler cannot skew (Ray's processes
 * run in the head's session, which Linux's autogroup scheduling gives a share of its own).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { RayEnvServers } from '../core/rollout/ray.js';
import { runPool, type RolloutJob } from '../core/rollout/threads/run-pool.js';
import { TASKS } from '../core/tasks/registry.js';
import { startRayHead } from '../test/jobs/ray-head.js';
import { stats } from './stats.js';

const load = () => loadavg()[0]!.toFixed(1);

/** Resident memory of a process of this machine, in MiB (Linux /proc). */
function rssMiB(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

interface Throughput {
  steps: number; wallS: number; startupS: number; stepsPerS: number; steadyStepsPerS: number;
  /** CPU time per step: this process (its worker threads included), plus the actors' and their servers' processes. */
  cpuMsPerStep: number;
  load: string;
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU time a process of this machine has used (all its threads, live and ended), in ms (Linux /proc). */
function procCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim().split(/\s+/);
    return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1000; // utime, stime
  } catch {
    return 0;
  }
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function throughput(devices: number, jobs: RolloutJob[], ray?: RayEnvServers): Promise<Throughput> {
  const pids = ray ? ray.servers.flatMap((x) => [x.actorPid, x.serverPid]) : [];
  const cpu = () => ownCpuMs() + pids.reduce((n, pid) => n + procCpuMs(pid), 0);
  const c0 = cpu();
  const s = await runPool({ devices, jobs, ...(ray ? { remote: ray.remote } : {}) });
  const cpuMs = cpu() - c0;
  const bad = [...s.outcomes.values()].filter((o) => !o.ok).length;
  if (bad) throw new Error(`${bad} episodes failed`);
  return {
    steps: s.steps, wallS: s.wallMs / 1000, startupS: s.startupMs / 1000, stepsPerS: Math.round(s.steps / (s.wallMs / 1000)),
    steadyStepsPerS: Math.round(s.steps / ((s.wallMs - s.startupMs) / 1000)), cpuMsPerStep: Number((cpuMs / s.steps).toFixed(3)), load: load(),
  };
}

/**
 * Milliseconds between consecutive episode ends on one worker, and the CPU time per episode over the same span (this
 * process, plus the actor's and its server's with Ray), the first episode left out: it waits for the boot.
 */
async function episodeGaps(jobs: RolloutJob[], record: boolean, ray?: RayEnvServers): Promise<{ gaps: number[]; cpuMsPerEpisode: number }> {
  const pids = ray ? ray.servers.flatMap((x) => [x.actorPid, x.serverPid]) : [];
  const cpu = () => ownCpuMs() + pids.reduce((n, pid) => n + procCpuMs(pid), 0);
  const ends: number[] = [];
  let c1 = 0;
  let c2 = 0;
  await runPool({
    devices: 1, jobs, ...(ray ? { remote: ray.remote } : {}),
    onEpisode: () => {
      ends.push(performance.now());
      if (ends.length === 1) c1 = cpu();
      if (ends.length === jobs.length) c2 = cpu();
    },
    ...(record ? { recorder: () => ({ begin: () => {}, step: () => {}, end: () => {} }) } : {}),
  });
  return { gaps: ends.slice(1).map((t, i) => t - ends[i]!), cpuMsPerEpisode: Number(((c2 - c1) / (jobs.length - 1)).toFixed(3)) };
}

export async function benchRayRollouts(): Promise<Record<string, unknown>> {
  process.env.AWB_RAY_CPUS = '4';
  const head = await startRayHead();
  console.log(`Ray head (4 logical CPUs) up in ${head.startupS} s; load ${load()}`);
  const results: Record<string, unknown> = { head: { startupS: head.startupS } };
  try {
    const jobs: RolloutJob[] = TASKS.map((t) => ({ key: t.id, templateId: t.id, seed: 0, policy: { name: 'random' } }));
    for (const n of [1, 2, 4]) {
      const t0 = performance.now();
      const ray = await RayEnvServers.start({ address: head.address, envs: n });
      const actorsS = (performance.now() - t0) / 1000;
      try {
        const rounds: Array<{ local: Throughput; ray: Throughput }> = [];
        // The most memory each actor's two processes held while episodes ran (sampled every 100 ms).
        const memory = ray.servers.map(() => ({ actorMiB: 0, serverMiB: 0 }));
        const sample = setInterval(() => ray.servers.forEach((x, i) => {
          memory[i]!.actorMiB = Math.max(memory[i]!.actorMiB, rssMiB(x.actorPid) ?? 0);
          memory[i]!.serverMiB = Math.max(memory[i]!.serverMiB, rssMiB(x.serverPid) ?? 0);
        }), 100);
        try {
          for (let r = 0; r < 2; r++) rounds.push({ local: await throughput(n, jobs), ray: await throughput(n, jobs, ray) });
        } finally {
          clearInterval(sample);
        }
        results[`n_${n}`] = { episodes: jobs.length, actorsStartS: actorsS, driverStartupS: ray.startupS, rounds, memory };
        console.log(`  peak memory per actor (Ray worker + awb env serve): ${memory.map((m) => `${m.actorMiB} + ${m.serverMiB} MiB`).join(', ')}`);
        for (const [r, x] of rounds.entries()) {
          console.log(`${n} worker(s), round ${r + 1}: local ${x.local.stepsPerS} steps/s (${x.local.steadyStepsPerS} after start-up, ${x.local.cpuMsPerStep} CPU ms/step, load ${x.local.load}), `
            + `Ray ${x.ray.stepsPerS} steps/s (${x.ray.steadyStepsPerS} after start-up, ${x.ray.cpuMsPerStep} CPU ms/step, load ${x.ray.load}); ${x.ray.steps} steps`);
        }
        console.log(`  ${n} actor(s) started in ${actorsS.toFixed(1)} s`);
      } finally {
        await ray.close();
      }
    }
    // Per-episode overhead: short oracle episodes on one worker, back to back.
    const short: RolloutJob[] = Array.from({ length: 200 }, (_, i) => ({ key: `o${i}`, templateId: 'SystemWifiTurnOn', seed: i, policy: { name: 'oracle' } }));
    const ray = await RayEnvServers.start({ address: head.address, envs: 1 });
    try {
      const overhead: Record<string, unknown> = {};
      for (const record of [false, true]) {
        const l = await episodeGaps(short, record);
        const r = await episodeGaps(short, record, ray);
        const [local, remote] = [stats(l.gaps), stats(r.gaps)];
        overhead[record ? 'records' : 'results'] = { localMs: local, rayMs: remote, localCpuMsPerEpisode: l.cpuMsPerEpisode, rayCpuMsPerEpisode: r.cpuMsPerEpisode, load: load() };
        console.log(`per episode (${record ? 'every step forwarded' : 'results only'}): local median ${local.median.toFixed(2)} ms, Ray median ${remote.median.toFixed(2)} ms `
          + `(p95 ${local.p95.toFixed(2)} / ${remote.p95.toFixed(2)}); CPU ${l.cpuMsPerEpisode} / ${r.cpuMsPerEpisode} ms per episode: Ray adds `
          + `${(remote.median - local.median).toFixed(2)} ms wall, ${(r.cpuMsPerEpisode - l.cpuMsPerEpisode).toFixed(2)} ms CPU; load ${load()}`);
      }
      results.overhead = overhead;
    } finally {
      await ray.close();
    }
  } finally {
    await head.stop();
  }
  return results;
}
