import { constants } from 'node:os';

/** The stop signals a command honours: Ctrl-C, and what `kill`, systemd and container runtimes send. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The shell's exit status for a process ended by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

export interface StopHandlers {
  /** The first signal: stop at the next boundary (an episode, an iteration), mark what is stopped, say how to go on. */
  first(signal: StopSignal): void;
  /**
   * A second signal, while the first is being honoured: mark the run where it is and end the process now. Without it,
   * a second signal ends the process with the signal's exit status.
   */
  again?(signal: StopSignal): void;
}

/**
 * SIGINT and SIGTERM handled alike while a command runs; returns the function that removes the handlers. The
 * handlers run between turns of the event loop, so a command whose loop never yields a turn never sees them: loops
 * over in-process episodes yield one per episode (core/util/next-turn.ts).
 */
export function handleStopSignals(h: StopHandlers): () => void {
  let seen = 0;
  const listener = (signal: StopSignal) => {
    seen++;
    if (seen === 1) return h.first(signal);
    h.again?.(signal);
    process.exit(signalExitCode(signal));
  };
  for (const s of STOP_SIGNALS) process.on(s, listener);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, listener);
  };
}
