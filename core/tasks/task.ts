import type { z } from 'zod';
import type { Device } from '../device/device.js';
import type { Observation } from '../device/observation.js';
import type { Action } from '../actions/schema.js';
import type { Rng } from '../util/rng.js';
import type { OracleUi } from './oracle.js';
import type { CheckVerdict } from './verdict.js';

/**
 * A task template in AndroidWorld's anatomy: an instruction with parameters drawn from a seed,
 * state set up through the device, a checker that reads state back through device queries (shell
 * commands a real emulator answers too), ground-truth subgoals, and an oracle that solves it
 * through the UI with the public action space.
 */
export type Difficulty = 'easy' | 'medium' | 'hard';
export const DIFFICULTY_LEVEL: Record<Difficulty, 1 | 2 | 3> = { easy: 1, medium: 2, hard: 3 };

export const TASK_TAGS = [
  'data_entry', 'data_edit', 'deletion', 'toggle', 'information_retrieval', 'multi_app', 'needs_scrolling',
  'search', 'screen_reading', 'date_time', 'math_counting', 'long_press', 'dialog', 'complex_ui', 'memorization',
  'transcription', 'file_management', 'verification',
] as const;
export type TaskTag = (typeof TASK_TAGS)[number];

/** The simulated apps, by the names the catalog gives them. */
export const TASK_APPS = [
  'Audio Recorder', 'Broccoli', 'Calendar', 'Clock', 'Contacts', 'Files', 'Joplin', 'Markor', 'Pro Expense', 'Retro Music', 'Settings',
  'Simple SMS Messenger', 'Tasks', 'OpenTracks', 'VLC', 'OsmAnd', 'Simple Gallery Pro', 'Simple Draw Pro', 'Camera', 'Phone', 'Chrome',
] as const;
export type TaskApp = (typeof TASK_APPS)[number];

/** What the checker sees of an episode besides the device state. */
export interface EpisodeOutcome {
  /** The text of the agent's `answer` action, if it answered. */
  answer?: string;
  /** The agent's final `status` action, if any. */
  status?: 'complete' | 'infeasible';
  actions: readonly Action[];
}

export interface SubgoalContext {
  device: Device;
  obs: Observation;
}

/** One ordered intermediate check ("contact form open", "name typed"). */
export interface Subgoal {
  name: string;
  check(ctx: SubgoalContext): Promise<boolean>;
}

export type OracleScript = Generator<Action, void, void>;

export interface TaskTemplate<P = any> {
  /** CamelCase, unique, stable: it names the template in splits and stored episodes. */
  readonly id: string;
  /** The apps the task touches; the first is the one it is filed under. */
  readonly apps: readonly [TaskApp, ...TaskApp[]];
  readonly difficulty: Difficulty;
  readonly tags: readonly TaskTag[];
  /** Whether success means a state change or a correct `answer`. */
  readonly kind: 'completion' | 'information_retrieval';
  /** The instruction with {param} slots, e.g. `Create a new contact for {name}. Their number is {number}.` */
  readonly template: string;
  readonly params: z.ZodType<P>;
  /** Draws parameters (targets and distractors) from a seeded generator. */
  generate(rng: Rng): P;
  /** The instruction for concrete parameters (defaults to filling the template's slots). */
  instruction?(p: P): string;
  /** Step budget; the runner's default (20) applies when absent. */
  readonly maxSteps?: number;
  /** Sets up the starting state through the device (shell commands), from the device's boot state. */
  initialize(device: Device, p: P): Promise<void>;
  /**
   * Whether the task is done (state read back through device queries; answers compared): `ok` is the
   * verdict, the conditions say which checks held and which did not, with what was expected and found.
   */
  check(device: Device, p: P, episode: EpisodeOutcome): Promise<CheckVerdict>;
  teardown?(device: Device, p: P): Promise<void>;
  subgoals(p: P): Subgoal[];
  /** Solves the task through the UI: yields one action at a time, reading `ui.obs` for the current screen. */
  oracle(p: P, ui: OracleUi): OracleScript;
}

/** Identity function that gives a template its parameter type (a typed `TaskTemplate<P>` literal). */
export function defineTask<P>(t: TaskTemplate<P>): TaskTemplate<P> {
  return t;
}

/** Fills `{name}` slots from an object of parameters. */
export function fillTemplate(template: string, p: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => {
    if (!(k in p)) throw new Error(`Template slot {${k}} has no parameter in ${JSON.stringify(Object.keys(p))}`);
    return String(p[k]);
  });
}
