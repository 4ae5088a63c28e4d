import type { Action } from '../actions/schema.js';
import type { ForegroundApp } from '../device/device.js';
import type { StepError } from '../episode/record.js';
import { screenState, type ScreenState } from './screen-state.js';

/**
 * An episode's path as the analysis reads it, whether it came from the store or from an oracle run
 * just now: the screen before each step and the screen it ended on, and what each step did.
 */
export interface PathStep {
  index: number;
  foreground: ForegroundApp;
  action?: Action;
  description?: string;
  error?: StepError;
  /** The label of the element the action touched. */
  targetLabel?: string;
  /** A person chose the action (a step-through override), not the policy. */
  overridden?: boolean;
  /** The tree the step was taken on (uiautomator XML); null when none was recorded. */
  xml: string | null;
}

export interface EpisodePath {
  /** "episode 12" or "oracle". */
  label: string;
  /** The stored episode, or null for an oracle run made for the comparison. */
  episodeId: number | null;
  seed: number;
  steps: PathStep[];
  /** The screen after the last step (null when it was not observed). */
  finalXml: string | null;
}

/**
 * The path's screens: position i < steps.length is the screen step i was taken on; the last
 * position is the final screen. Null where no tree was recorded.
 */
export function screensOf(path: EpisodePath): Array<ScreenState | null> {
  const cache = new Map<string, ScreenState>();
  const of = (xml: string | null, fg: ForegroundApp | null) => {
    if (xml === null) return null;
    const key = `${fg?.package ?? ''}/${fg?.activity ?? ''}\n${xml}`;
    let s = cache.get(key);
    if (!s) cache.set(key, (s = screenState(xml, fg)));
    return s;
  };
  return [...path.steps.map((s) => of(s.xml, s.foreground)), of(path.finalXml, null)];
}

/** The texts the path typed, in order. */
export function typedTexts(path: EpisodePath): string[] {
  return path.steps.flatMap((s) => (s.action?.action_type === 'input_text' && !s.error ? [s.action.text] : []));
}

/** One line for a step: its description, else the action as JSON, with its error if it failed. */
export function describeStep(s: PathStep): string {
  const what = s.description ?? (s.action ? JSON.stringify(s.action) : '(no action)');
  return s.error ? `${what} [${s.error.name}]` : what;
}
