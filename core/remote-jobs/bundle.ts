import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserializeCheckpoint } from '../policy/checkpoint.js';
import { exportEpisodes } from '../store/export.js';
import { EPISODES_FILE, SCREENSHOT_DIR } from '../store/format.js';
import type { ReadableDB } from '../store/db.js';
import type { EpisodeId } from '../store/ids.js';
import { assertNever } from '../util/errors.js';
import { BundleError } from './errors.js';
import type { JobKind } from './protocol.js';
import type { BundleStep } from './steps.js';
import { TarWriter } from '../util/tar.js';

/**
 * The dataset bundle of docs/trainer-protocol.md: one uncompressed ustar file holding
 * manifest.json, the store's export of the episodes (episodes.jsonl, and screenshots/ for the VLM
 * kinds that look at them), steps.jsonl + init/policy.json (+ init/reference.json) for the builtin
 * policy, samples.jsonl + init/model.json for progrm / prm. Named by its sha256 on the server.
 */
export const BUNDLE_FORMAT = 'awb-bundle';
export const BUNDLE_VERSION = 1;

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  kind: JobKind;
  createdAt: number;
  counts: { episodes: number; steps: number; screenshots: number; samples: number };
}

export interface BundleSample {
  /** base64 float32 [F]. */
  features: string;
  label: number;
}

export interface BundleInput {
  kind: JobKind;
  /** Where to write the .tar. */
  file: string;
  createdAt: number;
  /** Stored episodes to include (episodes.jsonl; screenshots for VLM kinds). */
  episodes?: { db: ReadableDB; ids: readonly EpisodeId[] };
  /**
   * Rewrites each exported episode line before it goes into the tar (called with the line's episode
   * id, in `episodes.ids` order): the online GRPO loop adds `advantage` and the steps' `messages`.
   */
  annotateEpisode?: (line: Record<string, unknown>, id: EpisodeId) => Record<string, unknown>;
  /** Builtin kinds: steps.jsonl. */
  steps?: readonly BundleStep[];
  /** Builtin kinds: the starting checkpoint's text (init/policy.json); checked before writing. */
  initPolicy?: string;
  /** builtin-grpo: the KL reference when it differs from the init. */
  referencePolicy?: string;
  /** progrm / prm: samples.jsonl and the model's starting checkpoint (init/model.json). */
  samples?: readonly BundleSample[];
  initModel?: string;
}

export interface Bundle {
  file: string;
  sha256: string;
  size: number;
  manifest: BundleManifest;
}

/** What each kind needs in its bundle; refused before anything is written. */
function checkInput(b: BundleInput): { screenshots: boolean } {
  const need = (ok: unknown, what: string) => {
    if (!ok) throw new BundleError(b.kind, `needs ${what}`);
  };
  switch (b.kind) {
    case 'builtin-sft':
    case 'builtin-grpo':
      need(b.steps?.length, 'at least one step (steps.jsonl)');
      need(b.initPolicy, 'a starting policy (init/policy.json)');
      deserializeCheckpoint(b.initPolicy!, 'init/policy.json');
      if (b.referencePolicy) deserializeCheckpoint(b.referencePolicy, 'init/reference.json');
      if (b.kind === 'builtin-grpo' && b.steps!.some((s) => s.advantage === null)) throw new BundleError(b.kind, 'every GRPO step needs an advantage');
      return { screenshots: false };
    case 'progrm':
    case 'prm':
      need(b.samples?.length, 'at least one sample (samples.jsonl)');
      need(b.initModel, 'a starting model (init/model.json)');
      return { screenshots: false };
    case 'vlm-sft':
    case 'vlm-grpo':
      need(b.episodes?.ids.length, 'episodes (episodes.jsonl with screenshots)');
      return { screenshots: true };
    default:
      return assertNever(b.kind, 'job kind');
  }
}

const jsonl = (rows: readonly unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

/** Writes the bundle for `input.kind`; returns its sha256 and manifest. */
export function writeBundle(input: BundleInput): Bundle {
  const { screenshots } = checkInput(input);
  const tar = new TarWriter(input.file, input.createdAt / 1000);
  const counts = { episodes: 0, steps: input.steps?.length ?? 0, screenshots: 0, samples: input.samples?.length ?? 0 };
  let exportDir: string | null = null;
  try {
    const manifestAt = (): BundleManifest => ({ format: BUNDLE_FORMAT, version: BUNDLE_VERSION, kind: input.kind, createdAt: input.createdAt, counts });
    if (input.episodes?.ids.length) {
      // The store's own export (docs/trajectory-format.md), copied into the tar: one format for both paths to Python.
      exportDir = mkdtempSync(join(tmpdir(), 'awb-bundle-'));
      const summary = exportEpisodes(input.episodes.db, input.episodes.ids, exportDir);
      counts.episodes = summary.manifest.counts.episodes;
      if (screenshots) counts.screenshots = summary.manifest.counts.screenshots;
    }
    // manifest first, so a reader learns the kind before the data.
    tar.add('manifest.json', `${JSON.stringify(manifestAt(), null, 2)}\n`);
    if (exportDir) {
      const exported = readFileSync(join(exportDir, EPISODES_FILE));
      const annotate = input.annotateEpisode;
      const ids = input.episodes!.ids;
      // exportEpisodes writes one line per id, in the order given.
      tar.add(EPISODES_FILE, annotate
        ? exported.toString('utf8').split('\n').filter(Boolean).map((l, i) => `${JSON.stringify(annotate(JSON.parse(l) as Record<string, unknown>, ids[i]!))}\n`).join('')
        : exported);
      if (screenshots) for (const f of readdirSync(join(exportDir, SCREENSHOT_DIR)).sort()) tar.add(`${SCREENSHOT_DIR}/${f}`, readFileSync(join(exportDir, SCREENSHOT_DIR, f)));
    }
    if (input.steps) tar.add('steps.jsonl', jsonl(input.steps));
    if (input.initPolicy) tar.add('init/policy.json', input.initPolicy);
    if (input.referencePolicy) tar.add('init/reference.json', input.referencePolicy);
    if (input.samples) tar.add('samples.jsonl', jsonl(input.samples));
    if (input.initModel) tar.add('init/model.json', input.initModel);
    const { size, sha256 } = tar.finish();
    return { file: input.file, sha256, size, manifest: manifestAt() };
  } catch (e) {
    tar.abort();
    rmSync(input.file, { force: true });
    throw e;
  } finally {
    if (exportDir) rmSync(exportDir, { recursive: true, force: true });
  }
}
