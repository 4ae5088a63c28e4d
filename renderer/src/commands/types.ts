import type { AppState, AppStore } from '../store/index.js';

/**
 * Commands (in the style of excalidraw's actions): a name, a label, what it does to the store, the
 * key that triggers it and whether it can run now. Buttons and the one keydown handler both go
 * through them, so a shortcut and its button never disagree.
 */
export type CommandName =
  | 'session-step' | 'session-run' | 'session-pause' | 'session-stop' | 'session-reset' | 'session-takeover' | 'session-handback'
  | 'go-devices' | 'go-live' | 'go-agent' | 'go-trajectories' | 'go-settings' | 'go-training' | 'go-adaptation' | 'go-jobs'
  | 'endpoint-add';

/** The parts of a KeyboardEvent a keyTest reads (tests pass plain objects). */
export type KeyLike = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>;

export interface Command {
  name: CommandName;
  label: string;
  /** The shortcut as shown in titles, e.g. "F10". */
  shortcut?: string;
  keyTest?(e: KeyLike): boolean;
  /**
   * The key after G that runs it (GitHub's and Gmail's "g then d"): a shortcut no browser takes, where Ctrl+1…8 switch
   * the browser's tabs before the page hears them.
   */
  sequence?: string;
  /** Whether it can run in this state (buttons are disabled otherwise); always when absent. */
  predicate?(s: AppState): boolean;
  /** Why it cannot run in this state when that is not plain from the state (the button's title says it); null when it can or the reason is plain. */
  reason?(s: AppState): string | null;
  /** Calls one slice action. */
  perform(store: AppStore): unknown;
}

const registry: Command[] = [];

/** Adds a command to the registry (each command's file calls it once). */
export function register<C extends Command>(command: C): C {
  registry.push(command);
  return command;
}

export function registered(): readonly Command[] {
  return registry;
}

/** A plain function key with no modifiers, or with exactly Shift. */
export function fKey(key: string, shift = false) {
  return (e: KeyLike) => e.key === key && e.shiftKey === shift && !e.ctrlKey && !e.altKey && !e.metaKey;
}
