import { deviceKindOf } from '../store/catalog.js';
import { getTree } from '../store/content.js';
import type { ReadableDB } from '../store/db.js';
import type { EpisodeId } from '../store/ids.js';
import { successfulEpisodes } from '../store/queries.js';
import { loadTrajectory, type Trajectory } from '../store/trajectory.js';
import type { Reference } from './align.js';
import type { EpisodePath, PathStep } from './path.js';

/** A stored episode as a path; `trees(sha)` reads a stored tree (asked once per distinct hash). */
export function pathFromTrajectory(t: Trajectory, trees: (sha: string) => string): EpisodePath {
  const cache = new Map<string, string>();
  const tree = (sha: string | null) => {
    if (sha === null) return null;
    let x = cache.get(sha);
    if (x === undefined) cache.set(sha, (x = trees(sha)));
    return x;
  };
  return {
    label: `episode ${t.episode.id}`, episodeId: t.episode.id, seed: t.instance.seed, finalXml: tree(t.final.tree),
    steps: t.steps.map((s): PathStep => ({
      index: s.index, foreground: s.foreground, xml: tree(s.tree),
      ...(s.action ? { action: s.action } : {}), ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.error ? { error: s.error } : {}), ...(s.target ? { targetLabel: s.target.label } : {}), ...(s.overridden ? { overridden: true } : {}),
    })),
  };
}

export interface ReferenceOptions {
  /** Stored successes of the same instance to align with (newest first). Default 5. */
  sameInstance?: number;
  /** Stored successes of other seeds of the template, matched by layout. Default 3. */
  otherInstances?: number;
  /**
   * Run the oracle on the same instance in-process on SimDroid: 'when-needed' (default: when no
   * success of the instance is stored and the episode ran on SimDroid), 'always', or 'never'.
   */
  oracle?: 'when-needed' | 'always' | 'never';
}

/** The successful paths a failed episode is compared with, and why the oracle's is absent when it is. */
export async function findReferences(db: ReadableDB, t: Trajectory, o: ReferenceOptions = {}): Promise<{ references: Reference[]; notes: string[] }> {
  const trees = (sha: string) => getTree(db, sha);
  const successes = successfulEpisodes(db, t.instance.templateId, { excludeEpisode: t.episode.id, limit: 200 });
  const same = successes.filter((s) => s.seed === t.instance.seed).slice(0, o.sameInstance ?? 5);
  const other = successes.filter((s) => s.seed !== t.instance.seed).slice(0, o.otherInstances ?? 3);
  const load = (id: EpisodeId) => pathFromTrajectory(loadTrajectory(db, id), trees);
  const references: Reference[] = [
    ...same.map((s) => ({ path: load(s.id), level: 'exact' as const })),
    ...other.map((s) => ({ path: load(s.id), level: 'layout' as const })),
  ];
  const notes: string[] = [];
  const mode = o.oracle ?? 'when-needed';
  const onSimDroid = t.episode.device === null || deviceKindOf(t.episode.device.serial) === 'simdroid';
  if (mode === 'always' || (mode === 'when-needed' && same.length === 0)) {
    if (!onSimDroid) notes.push(`the oracle's path was not run: the episode ran on ${t.episode.device!.serial}, not SimDroid, so its screens would not match`);
    else {
      // Loaded only here: SimDroid and the runner are not needed for stored references (a run's table in the workbench's worker).
      const { oraclePath } = await import('./oracle.js');
      const oracle = await oraclePath(t.instance.templateId, t.instance.seed);
      if (oracle.path) references.push({ path: oracle.path, level: 'exact' });
      else notes.push(`the oracle failed this instance (${oracle.why}); it is not a reference`);
    }
  }
  return { references, notes };
}
