/**
 * Trajectory store benchmarks: write throughput for 20-step episodes with real SimDroid
 * screenshots, loading a trajectory, paging the episode table with 10,000 episodes, size per episode.
 *   npm run bench -- store
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { runEpisode } from '../core/episode/runner.js';
import { RandomPolicy } from '../core/episode/policies/random.js';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../core/episode/record.js';
import { instantiate } from '../core/tasks/instance.js';
import { getTemplate, TASKS } from '../core/tasks/registry.js';
import { createRng } from '../core/util/rng.js';
import {
  contentStats, createRun, listEpisodes, loadTrajectory, openStore, StoreRecorder, successfulEpisodes,
  type EpisodeId, type RunId, type WritableDB,
} from '../core/store/index.js';
import { fmt, stats, time } from './stats.js';

export interface CapturedEpisode {
  start: EpisodeStart;
  steps: Array<{ step: StepRecord; before: ObservationRecord }>;
  result: EpisodeResult;
  final: ObservationRecord;
}

/** Real episodes: the random agent on a few templates, 20 steps each, half-resolution screenshots. */
export async function captureEpisodes(count: number): Promise<CapturedEpisode[]> {
  const device = new SimDroid();
  const templates = ['ContactsAddContact', 'ClockAddAlarm', 'SystemWifiTurnOn', 'MarkorCreateNote', 'TasksAddTask'];
  const out: CapturedEpisode[] = [];
  for (let seed = 0; out.length < count; seed++) {
    const template = getTemplate(templates[seed % templates.length]!);
    let cur: Partial<CapturedEpisode> & { steps: CapturedEpisode['steps'] } = { steps: [] };
    const capture: EpisodeRecorder = {
      begin: (start) => void (cur = { start, steps: [] }),
      step: (step, before) => void cur.steps.push({ step, before }),
      end: (result, final) => void Object.assign(cur, { result, final }),
    };
    await runEpisode({
      device, instance: instantiate(template, seed), policy: new RandomPolicy(createRng(`bench-store/${seed}`)), screenshots: 'half', recorder: capture, maxSteps: 20,
    });
    if (cur.steps.length === 20) out.push(cur as CapturedEpisode);
  }
  device.close();
  return out;
}

export function replay(db: WritableDB, runId: RunId, ep: CapturedEpisode, startedAt: number, templateId = ep.start.templateId, seed = ep.start.seed, onStep?: (ms: number) => void): EpisodeId {
  const rec = new StoreRecorder(db, runId);
  rec.begin({ ...ep.start, templateId, seed, startedAt });
  for (const { step, before } of ep.steps) {
    if (onStep) onStep(time(() => rec.step(step, before)));
    else rec.step(step, before);
  }
  rec.end({ ...ep.result, templateId, seed, startedAt, finishedAt: startedAt + Math.round(ep.result.timings.totalMs) }, ep.final);
  return rec.episodeId!;
}

function fileBytes(path: string): number {
  let n = 0;
  for (const suffix of ['', '-wal']) {
    try {
      n += statSync(path + suffix).size;
    } catch {
      // no WAL file after a checkpoint on close
    }
  }
  return n;
}

export async function benchStore(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-store-'));
  try {
    const t0 = performance.now();
    const episodes = await captureEpisodes(40);
    const steps = episodes.length * 20;
    console.log(`captured ${episodes.length} random-agent episodes × 20 steps in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // (a) write throughput into a fresh file-backed store, as a suite run writes it, until it is
    // closed; five fresh stores.
    const rates: number[] = [];
    const stepMs: number[] = [];
    let size = { seen: 0, stored: 0, file: 0, screenshots: 0, trees: 0 };
    for (let rep = 0; rep < 5; rep++) {
      const path = join(dir, `write-${rep}.db`);
      const db = openStore(path);
      const run = createRun(db, { kind: 'suite', name: 'bench' });
      const t = performance.now();
      episodes.forEach((ep, i) => replay(db, run.id, ep, 1_700_000_000_000 + i * 1000, undefined, undefined, rep === 0 ? undefined : (ms) => stepMs.push(ms)));
      const c = contentStats(db);
      // Closing checkpoints the WAL into the database: work the writes caused, so it is timed too.
      db.close();
      rates.push(steps / ((performance.now() - t) / 1000));
      if (rep === 0) {
        const seen = episodes.reduce((n, ep) => n + [...ep.steps.map((s) => s.before), ep.final]
          .reduce((m, o) => m + (o.screenshot?.length ?? 0) + Buffer.byteLength(o.xml), 0), 0);
        size = { seen, stored: c.screenshots.bytes + c.trees.storedBytes, file: fileBytes(path), screenshots: c.screenshots.count, trees: c.trees.count };
      }
    }
    const frames = episodes.length * 21;
    results.write = { steps, episodes: episodes.length, stepsPerSecond: stats(rates), stepCall: stats(stepMs), ...size, frames };
    console.log(`(a) write, ${steps} steps in ${episodes.length} episodes, fresh store: median ${stats(rates).median.toFixed(0)} steps/s (min ${Math.min(...rates).toFixed(0)}); recorder.step ${fmt(stats(stepMs))}`);
    console.log(`    bytes seen ${(size.seen / 1e6).toFixed(1)} MB (PNG + XML) → stored ${(size.stored / 1e6).toFixed(1)} MB; ${size.screenshots} distinct screenshots and ${size.trees} trees for ${frames} observations`);
    console.log(`(d) store file ${(size.file / 1e6).toFixed(1)} MB = ${(size.file / episodes.length / 1e3).toFixed(0)} KB per 20-step episode`);

    // (a') sustained: five passes over the episodes, no frame shared between passes (each pass
    // deduplicates only within itself), with the WAL checkpoints a long run does.
    const distinct = (o: ObservationRecord, pass: number): ObservationRecord => {
      if (!o.screenshot) return o;
      const png = Buffer.from(o.screenshot);
      png.writeUInt32BE(pass, png.length - 4); // the IEND chunk's CRC: a different hash, the same header
      return { ...o, screenshot: png };
    };
    const passes = [1, 2, 3, 4, 5].map((pass) => episodes.map((ep) => ({
      ...ep, steps: ep.steps.map((s) => ({ ...s, before: distinct(s.before, pass) })), final: distinct(ep.final, pass),
    })));
    const sustainedPath = join(dir, 'sustained.db');
    const sdb = openStore(sustainedPath);
    const srun = createRun(sdb, { kind: 'suite', name: 'sustained' });
    const ts = performance.now();
    passes.flat().forEach((ep, i) => replay(sdb, srun.id, ep, 1_700_000_000_000 + i * 1000));
    sdb.close();
    const sustained = (passes.flat().length * 20) / ((performance.now() - ts) / 1000);
    results.writeSustained = { steps: passes.flat().length * 20, stepsPerSecond: sustained, fileBytes: fileBytes(sustainedPath) };
    console.log(`(a') write, ${passes.flat().length * 20} steps, 5 passes sharing no frame, until closed: ${sustained.toFixed(0)} steps/s, ${(fileBytes(sustainedPath) / 1e6).toFixed(0)} MB`);

    // (c) 10,000 episodes over every template, statuses as recorded, content repeating from the pool.
    const path = join(dir, 'ten-thousand.db');
    const db = openStore(path);
    const runs = [createRun(db, { kind: 'suite', name: 'bench A' }), createRun(db, { kind: 'training', name: 'bench B' })];
    const tFill = performance.now();
    const ids: EpisodeId[] = [];
    for (let i = 0; i < 10_000; i++) {
      const template = TASKS[i % TASKS.length]!;
      const ep = episodes[i % episodes.length]!;
      // Half the episodes end in success, so status filters select realistic fractions.
      const ended = i % 2 === 0 ? { ...ep, result: { ...ep.result, success: true, status: 'success' as const } } : ep;
      ids.push(replay(db, runs[i % 2]!.id, ended, 1_700_000_000_000 + i * 60_000, template.id, Math.floor(i / TASKS.length)));
    }
    const fillSecs = (performance.now() - tFill) / 1000;
    console.log(`filled 10,000 episodes (200,000 steps, content deduplicated) in ${fillSecs.toFixed(1)} s = ${(200_000 / fillSecs).toFixed(0)} steps/s`);

    const page = (filter: Parameters<typeof listEpisodes>[1]) => {
      for (let i = 0; i < 20; i++) listEpisodes(db, filter);
      const s = [];
      for (let i = 0; i < 200; i++) s.push(time(() => listEpisodes(db, filter)));
      return stats(s);
    };
    const firstPage = page({ limit: 50 });
    const appStatus = page({ limit: 50, app: 'Contacts', status: 'failure' });
    const search = page({ limit: 50, search: 'alarm' });
    const deep = page({ limit: 50, offset: 9_000 });
    const byTemplate = page({ limit: 50, templateId: TASKS[7]!.id });
    const succ = [];
    for (let i = 0; i < 200; i++) succ.push(time(() => successfulEpisodes(db, TASKS[i % TASKS.length]!.id, { limit: 20 })));
    const sample = listEpisodes(db, { limit: 50, app: 'Contacts', status: 'failure' });
    results.listEpisodes = { episodes: 10_000, firstPage, appStatus, appStatusTotal: sample.total, search, deepPage: deep, byTemplate };
    results.successfulEpisodes = stats(succ);
    console.log(`(c) listEpisodes, 10,000 episodes, first page of 50, no filter: ${fmt(firstPage)}`);
    console.log(`    app=Contacts + status=failure (${sample.total} match): ${fmt(appStatus)}`);
    console.log(`    instruction search "alarm": ${fmt(search)}; page at offset 9,000: ${fmt(deep)}`);
    console.log(`    one template: ${fmt(byTemplate)}; successfulEpisodes(template, limit 20): ${fmt(stats(succ))}`);

    // (b) loading a 20-step trajectory (rows and rewards; PNGs are not read).
    const rng = createRng('bench-store/load');
    for (let i = 0; i < 100; i++) loadTrajectory(db, ids[rng.int(0, ids.length - 1)]!);
    const loads = [];
    for (let i = 0; i < 2000; i++) {
      const id = ids[rng.int(0, ids.length - 1)]!;
      loads.push(time(() => loadTrajectory(db, id)));
    }
    results.loadTrajectory = stats(loads);
    console.log(`(b) loadTrajectory, 20 steps, random episode of 10,000: ${fmt(stats(loads))}`);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
