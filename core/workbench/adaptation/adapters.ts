import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appSlug, loadAdapter, sha256Hex } from '../../policy/adapter-file.js';
import type { AdaptationReport } from '../../rl/adapt.js';
import { listCheckpoints } from '../checkpoints.js';
import type { AdapterInfo } from '../../api/adaptation-types.js';
import { writeFileAtomic } from '../../util/atomic-write.js';

/**
 * The stored adapters as the Adaptation view lists them, and the reports the workbench keeps of its
 * adaptations. Reports live apart from the adapters (<data folder>/adaptations/<job>.json): the
 * adapter folder holds only adapter files, which loadAdapters reads as such.
 */
export const adaptersRoot = (dataDir: string) => join(dataDir, 'adapters');
export const reportsDir = (dataDir: string) => join(dataDir, 'adaptations');

/** A report file's name: its start time and app ("2026-11-22T10-00-00-000Z-audio-recorder.json"). */
export function reportName(startedAt: number, app: string): string {
  return `${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}-${appSlug(app)}.json`;
}

/** Writes atomically; returns the path. */
export function saveReport(dataDir: string, name: string, report: AdaptationReport): string {
  const dir = reportsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileAtomic(path, JSON.stringify(report, null, 1));
  return path;
}

type ReportRef = NonNullable<AdapterInfo['report']>;

/** The newest report that saved each adapter path (names sort by time). */
function reportsByAdapter(dataDir: string): Map<string, ReportRef> {
  const dir = reportsDir(dataDir);
  const out = new Map<string, ReportRef>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    let r: Partial<AdaptationReport>;
    try {
      r = JSON.parse(readFileSync(file, 'utf8')) as Partial<AdaptationReport>;
    } catch {
      continue; // a half-written or foreign file: its adapter is listed without a report
    }
    const path = r.adapter?.path;
    if (typeof path !== 'string') continue;
    out.set(path, { file, before: r.before?.successRate ?? null, after: r.after?.successRate ?? null, delta: r.delta ?? null, evalSeeds: r.evalSeeds ?? [] });
  }
  return out;
}

/** The sha256 of each checkpoint's policy.json under the data folder, to name an adapter's base. */
function checkpointShas(dataDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of listCheckpoints(dataDir)) {
    try {
      out.set(sha256Hex(readFileSync(c.policy)), c.name);
    } catch {
      continue; // removed meanwhile: nothing to name
    }
  }
  return out;
}

/** Every *.json under <data folder>/adapters/<base prefix>/, newest first; a file that is not a valid adapter is listed with its problem. */
export function listAdapters(dataDir: string): AdapterInfo[] {
  const root = adaptersRoot(dataDir);
  if (!existsSync(root)) return [];
  const bases = checkpointShas(dataDir);
  const reports = reportsByAdapter(dataDir);
  const out: AdapterInfo[] = [];
  for (const folder of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(join(root, folder.name)).filter((n) => n.endsWith('.json'))) {
      const path = join(root, folder.name, name);
      const st = statSync(path);
      const info: AdapterInfo = {
        path, bytes: st.size, updatedAt: st.mtimeMs, app: null, package: null, kind: null, rank: null, parameters: null,
        base: { sha256: null, checkpoint: null }, method: null, stoppedBy: null, report: reports.get(path) ?? null, problem: null,
      };
      try {
        const a = loadAdapter(path);
        const meta = a.meta;
        Object.assign(info, {
          app: a.app, package: a.package, kind: a.adapter.spec.kind, rank: a.adapter.spec.kind === 'lowrank' ? a.adapter.spec.rank : null,
          parameters: a.adapter.params.length, base: { sha256: a.baseSha256, checkpoint: bases.get(a.baseSha256) ?? null },
          method: typeof meta.method === 'string' ? meta.method : null, stoppedBy: typeof meta.stoppedBy === 'string' ? meta.stoppedBy : null,
        });
      } catch (e) {
        info.problem = `${(e as Error).name}: ${(e as Error).message}`;
      }
      out.push(info);
    }
  }
  return out.sort((a, b) => b.updatedAt - a.updatedAt || a.path.localeCompare(b.path));
}
