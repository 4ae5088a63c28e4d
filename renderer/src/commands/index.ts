import type { AppStore } from '../store/index.js';
import type { Command, CommandName, KeyLike } from './types.js';
import { sessionStep } from './session-step.js';
import { sessionRun } from './session-run.js';
import { sessionPause } from './session-pause.js';
import { sessionStop } from './session-stop.js';
import { sessionReset } from './session-reset.js';
import { sessionHandback, sessionTakeover } from './session-takeover.js';
import { goDevices } from './go-devices.js';
import { goLive } from './go-live.js';
import { goAgent } from './go-agent.js';
import { goTrajectories } from './go-trajectories.js';
import { goSettings } from './go-settings.js';
import { goTraining } from './go-training.js';
import { goAdaptation } from './go-adaptation.js';
import { goJobs } from './go-jobs.js';
import { endpointAdd } from './endpoint-add.js';

export type { Command, CommandName, KeyLike } from './types.js';

/** Every command by name: the union is closed, so a name without a command does not compile. */
export const COMMANDS: Record<CommandName, Command> = {
  'session-step': sessionStep,
  'session-run': sessionRun,
  'session-pause': sessionPause,
  'session-stop': sessionStop,
  'session-reset': sessionReset,
  'session-takeover': sessionTakeover,
  'session-handback': sessionHandback,
  'go-devices': goDevices,
  'go-live': goLive,
  'go-agent': goAgent,
  'go-trajectories': goTrajectories,
  'go-settings': goSettings,
  'go-training': goTraining,
  'go-adaptation': goAdaptation,
  'go-jobs': goJobs,
  'endpoint-add': endpointAdd,
};

export function canRun(name: CommandName, store: AppStore): boolean {
  return COMMANDS[name].predicate?.(store.getState()) ?? true;
}

/** Runs a command if its predicate allows; returns whether it ran. */
export function runCommand(name: CommandName, store: AppStore): boolean {
  if (!canRun(name, store)) return false;
  void COMMANDS[name].perform(store);
  return true;
}

/** The command a key press means, whether or not it can run now. */
export function commandForKey(e: KeyLike): Command | null {
  return Object.values(COMMANDS).find((c) => c.keyTest?.(e)) ?? null;
}

/** "Step (F10)": a button's title. */
export function titleOf(name: CommandName): string {
  const c = COMMANDS[name];
  return c.shortcut ? `${c.label} (${c.shortcut})` : c.label;
}

/** The command G then this key runs. */
export function commandForSequence(key: string): Command | null {
  return Object.values(COMMANDS).find((c) => c.sequence === key.toLowerCase()) ?? null;
}

/** How long the key after G may wait. */
const SEQUENCE_MS = 1500;

const typingIn = (t: EventTarget | null) =>
  typeof HTMLElement !== 'undefined' && t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable || t.closest('[data-keys="device"]') !== null);

/**
 * The app's one keydown handler. A key bound to a command is kept from the browser even when the
 * command cannot run now (Shift+F5 must not reload the page because no session is running). G then a
 * letter runs a view command, except while typing (a field, or the Live screen, whose keys go to the device).
 * Esc in a field leaves it for the view (`data-focus-home`), so the view's own keys work again.
 */
export function handleKeyDown(store: AppStore, e: KeyboardEvent, seq: { g: number | null } = { g: null }): void {
  const c = commandForKey(e);
  if (c) {
    e.preventDefault();
    runCommand(c.name, store);
    return;
  }
  const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
  if (e.key === 'Escape' && plain && typingIn(e.target) && (e.target as HTMLElement).closest('[data-keys="device"]') === null && typeof document !== 'undefined') {
    (e.target as HTMLElement).blur();
    // The view's own place for keys (the episode table, the inspector's tree), else the main area: the first one shown.
    [...document.querySelectorAll<HTMLElement>('[data-focus-home]')].find((el) => el.offsetParent !== null || el.tagName === 'MAIN')?.focus();
    return;
  }
  if (!plain || typingIn(e.target)) return;
  const now = e.timeStamp || Date.now();
  if (seq.g !== null && now - seq.g <= SEQUENCE_MS) {
    seq.g = null;
    const next = commandForSequence(e.key);
    if (next) {
      e.preventDefault();
      runCommand(next.name, store);
    }
    return;
  }
  seq.g = e.key === 'g' && !e.shiftKey ? now : null;
}

export function installKeys(store: AppStore, target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window): () => void {
  const seq = { g: null as number | null };
  const listener = (e: KeyboardEvent) => handleKeyDown(store, e, seq);
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}
