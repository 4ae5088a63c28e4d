/**
 * Resolves on the event loop's next turn (after I/O and signal handlers), not as a microtask. A loop whose awaits all
 * settle at once (SimDroid episodes with the builtin policy: no timer, no I/O) never lets the loop turn: a SIGINT
 * handler, a worker's message, an abort from the UI would wait for the whole loop to end. One call per episode or
 * iteration costs microseconds.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
