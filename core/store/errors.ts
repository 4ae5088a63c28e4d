import type { ProcessOwner } from '../util/process-owner.js';
import type { EpisodeId, RunId } from './ids.js';

/** Named errors of the trajectory store: each carries the bad value and the id it concerns. */

export class StoreVersionFromFutureError extends Error {
  override name = 'StoreVersionFromFutureError';
  constructor(readonly path: string, readonly found: number, readonly supported: number) {
    super(`${path}: the store is at schema version ${found}, newer than this build supports (${supported}); upgrade awb to open it`);
  }
}

export class StoreNeedsMigrationError extends Error {
  override name = 'StoreNeedsMigrationError';
  constructor(readonly path: string, readonly found: number, readonly expected: number) {
    super(`${path}: the store is at schema version ${found}, expected ${expected}; open it writable once to migrate it`);
  }
}

/**
 * The file at a store's path is not a usable SQLite database (a folder, another kind of file, a truncated or damaged
 * database). Raised before anything is written to it.
 */
export class StoreFileError extends Error {
  override name = 'StoreFileError';
  constructor(readonly path: string, readonly problem: string) {
    super(`${path}: ${problem}; not opened, nothing written (point --db or $AWB_DB at a trajectory store, or at a new file)`);
  }
}

/** The migration list itself is wrong (a programming error caught by the runner and a test). */
export class MigrationListError extends Error {
  override name = 'MigrationListError';
  constructor(readonly versions: number[]) {
    super(`Migration versions must be 1, 2, 3, … without gaps; got ${JSON.stringify(versions)}`);
  }
}

export class RunNotFoundError extends Error {
  override name = 'RunNotFoundError';
  constructor(readonly runId: RunId | string) {
    super(`No run ${JSON.stringify(runId)} in the store`);
  }
}

/** A resume of a run that another live process is recording (two resumes at once, or a resume of a run still going). */
export class RunLiveError extends Error {
  override name = 'RunLiveError';
  constructor(readonly runId: RunId, readonly owner: ProcessOwner, readonly command: string | null = null) {
    super(`Run ${runId} is being recorded by process ${owner.pid}${command ? ` (${command.length > 120 ? `${command.slice(0, 120)}…` : command})` : ''} on ${owner.host}; `
      + 'resuming it now would record its episodes twice: stop that process (Ctrl-C, or kill ' + `${owner.pid}) or wait for it to end, then resume`);
  }
}

/** A run of another kind than the command continues (`suite run --resume` of a training run). */
export class RunKindError extends Error {
  override name = 'RunKindError';
  constructor(readonly runId: RunId, readonly kind: string, readonly expected: string, hint = '') {
    super(`Run ${runId} is a${/^[aeiou]/.test(kind) ? 'n' : ''} ${kind} run, not a ${expected} run${hint ? `; ${hint}` : ''}`);
  }
}

export class EpisodeNotFoundError extends Error {
  override name = 'EpisodeNotFoundError';
  constructor(readonly episodeId: EpisodeId | string) {
    super(`No episode ${JSON.stringify(episodeId)} in the store`);
  }
}

export class StepNotFoundError extends Error {
  override name = 'StepNotFoundError';
  constructor(readonly episodeId: EpisodeId, readonly step: number) {
    super(`Episode ${episodeId} has no step ${step}`);
  }
}

export class ScreenshotNotFoundError extends Error {
  override name = 'ScreenshotNotFoundError';
  constructor(readonly sha256: string) {
    super(`No screenshot with sha256 ${sha256} in the store`);
  }
}

export class TreeNotFoundError extends Error {
  override name = 'TreeNotFoundError';
  constructor(readonly sha256: string) {
    super(`No accessibility tree with sha256 ${sha256} in the store`);
  }
}

export class ScreenshotFormatError extends Error {
  override name = 'ScreenshotFormatError';
  constructor(readonly sha256: string, readonly reason: string) {
    super(`Screenshot ${sha256} is not a PNG: ${reason}`);
  }
}

export class RewardValueError extends Error {
  override name = 'RewardValueError';
  constructor(readonly episodeId: EpisodeId, readonly kind: string, readonly step: number, readonly value: unknown) {
    super(`Reward ${JSON.stringify(kind)} for episode ${episodeId} step ${step} must be a finite number, got ${String(value)}`);
  }
}

/** A recorder was used out of order (step before begin, begin while an episode is open). */
export class RecorderStateError extends Error {
  override name = 'RecorderStateError';
  constructor(readonly runId: RunId, readonly call: 'begin' | 'step', readonly openEpisode: EpisodeId | null) {
    super(openEpisode === null
      ? `Recorder for run ${runId}: ${call}() called with no episode begun`
      : `Recorder for run ${runId}: ${call}() called while episode ${openEpisode} is still open (use one recorder per concurrent episode)`);
  }
}

/** A line of an import's episodes.jsonl that does not match the trajectory format. */
export class ImportLineError extends Error {
  override name = 'ImportLineError';
  constructor(readonly file: string, readonly line: number, readonly issues: string[]) {
    super(`${file}:${line}: not a trajectory record: ${issues.join('; ')}`);
  }
}

/** A screenshot or tree an import line refers to is missing or does not match its hash. */
export class ImportAssetError extends Error {
  override name = 'ImportAssetError';
  constructor(readonly file: string, readonly line: number, readonly asset: string, readonly reason: string) {
    super(`${file}:${line}: ${asset}: ${reason}`);
  }
}

export class ImportManifestError extends Error {
  override name = 'ImportManifestError';
  constructor(readonly file: string, readonly reason: string) {
    super(`${file}: ${reason}`);
  }
}

/** An export's destination holds something already (a file, or a folder with files and no --force). */
export class ExportExistsError extends Error {
  override name = 'ExportExistsError';
  constructor(readonly dir: string, readonly problem: string) {
    super(`${dir} ${problem}`);
  }
}

/** A record of an import's episodes.jsonl that contradicts itself, or another line with its uid. */
export class ImportRecordError extends Error {
  override name = 'ImportRecordError';
  constructor(readonly file: string, readonly line: number, readonly uid: string, readonly problem: string) {
    super(`${file}:${line}: episode ${JSON.stringify(uid.length > 80 ? `${uid.slice(0, 80)}…` : uid)}: ${problem}`);
  }
}

/** A file of an import that is not a regular file in the export folder (a FIFO, a device, a link out of the folder). */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
  constructor(readonly file: string, readonly problem: string) {
    super(`${file}: ${problem}`);
  }
}
