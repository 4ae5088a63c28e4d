import type { AdapterKind } from '../policy/adapter.js';
import type { HomeMode } from '../policy/adapter-policy.js';
import type { AdaptMethod } from '../rl/adapt-config.js';
import type { AdaptRegime } from '../rl/adapt-instances.js';
import type { AdaptationReport, AdaptProgress } from '../rl/adapt.js';
import type { ConfigField, JobInfo, TrainerKind } from './training-types.js';

/**
 * The plain data of per-app adaptation in the workbench API (the renderer imports these types
 * only). An adaptation is a background job of kind 'adapt' in the same job manager and worker as
 * training (core/workbench/training/jobs.ts): one job of any kind at a time.
 */
export type { AdaptationReport, AdaptProgress } from '../rl/adapt.js';
export type { AppEvalResult, TemplateDelta, TemplateRate } from '../rl/adapt-eval.js';
export type { AdaptMethod, AdapterKind, AdaptRegime, HomeMode };

/** A task app that can be adapted to: it has adaptation instances and held-out test templates. */
export interface AdaptableApp {
  /** The task-app name ('Audio Recorder'), what `startAdaptation` takes. */
  app: string;
  package: string;
  /** unseen-app for the held-out apps, else unseen-template (its held-out templates). */
  regime: AdaptRegime;
  /** One of the unseen-app regime's held-out (test) apps: the paper's adaptation setting. */
  heldOut: boolean;
  /** Instances of the adapt part (held-out templates on seeds 100–107): the most shots it takes. */
  adaptInstances: number;
  /** Held-out templates the before / after evaluation runs (each on every evaluation seed). */
  testTemplates: number;
}

/** One checkpoint of a base's lineage: what it was trained on (nulls: not recorded with it). */
export interface BaseTrainingStep {
  checkpoint: string;
  trainer: TrainerKind | null;
  split: string | null;
  part: string | null;
  /** Templates its training drew from. */
  templates: number | null;
}

/** What a base checkpoint's training saw, through its inits (describeAdaptationBase). */
export interface BaseTraining {
  policy: string;
  /** The checkpoint first, then its init, and so on. */
  steps: BaseTrainingStep[];
  /** Task apps of the templates any step trained on: adapting to one of them is not adapting to a held-out app. */
  apps: string[];
  /** False when a step's training is not recorded (a registered file, an init that is gone): `apps` may be missing some. */
  complete: boolean;
}

export interface AdaptationDefaults {
  shots: number;
  method: AdaptMethod;
  kind: AdapterKind;
  rank: number;
  /** GRPO iterations. */
  iterations: number;
  /** SFT epochs. */
  epochs: number;
  seed: number;
  home: HomeMode;
  evalSeeds: number[];
}

export interface AdaptationDescription {
  /** Held-out (unseen-app) apps first, then the others. */
  apps: AdaptableApp[];
  methods: readonly AdaptMethod[];
  kinds: readonly AdapterKind[];
  homeModes: readonly HomeMode[];
  maxRank: number;
  defaults: AdaptationDefaults;
  /** Every field of the adaptation config (core/rl/adapt-config.ts), for a form: labels, bounds, defaults. */
  fields: ConfigField[];
}

/** What `startAdaptation` takes: the shorthand fields override the same fields of `config`. */
export interface AdaptationStart {
  /** Task-app name, launcher label, alias or package. */
  app: string;
  /** The base: a checkpoint's name (a folder of <data folder>/checkpoints) or an absolute path to a policy JSON file. */
  policy: string;
  shots?: number;
  method?: AdaptMethod;
  kind?: AdapterKind;
  rank?: number;
  /** GRPO iterations. */
  iterations?: number;
  /** SFT epochs. */
  epochs?: number;
  seed?: number;
  home?: HomeMode;
  /** Recorded (e.g. hand-recorded) successful episodes of the app as SFT demonstrations; method defaults to 'sft' then. */
  episodes?: number[];
  /** Evaluation seeds (default 30, 7, 1234). */
  evalSeeds?: number[];
  /** Only these held-out templates of the app (default all). */
  evalTemplates?: string[];
  /** The rest of the adaptation config (core/rl/adapt-config.ts), validated with every problem listed. */
  config?: unknown;
}

/** A stored per-app adapter (<data folder>/adapters/<base sha prefix>/<app>.json). */
export interface AdapterInfo {
  path: string;
  bytes: number;
  updatedAt: number;
  /** Null when the file cannot be read as an adapter (`problem` says why). */
  app: string | null;
  package: string | null;
  kind: AdapterKind | null;
  rank: number | null;
  parameters: number | null;
  base: {
    sha256: string | null;
    /** The checkpoint folder whose policy.json has that sha256, if one is under the data folder. */
    checkpoint: string | null;
  };
  method: string | null;
  /** 'aborted': its training was stopped early. */
  stoppedBy: string | null;
  /** The last adaptation report that saved this file, if the workbench wrote one. */
  report: { file: string; before: number | null; after: number | null; delta: number | null; evalSeeds: number[] } | null;
  problem: string | null;
}

/** Streamed by onAdaptation: an adaptation job's state changes, its progress (as runAdaptation reports it), and its report. */
export type AdaptationEvent =
  | { kind: 'state'; job: JobInfo }
  | { kind: 'progress'; job: JobInfo; progress: AdaptProgress }
  | { kind: 'report'; job: JobInfo; report: AdaptationReport };
