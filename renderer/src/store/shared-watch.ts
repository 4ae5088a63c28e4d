/**
 * One API event subscription shared by every view that watches it: the first watcher opens it, the
 * last one to stop closes it, and a stop function called twice counts once (React's strict-mode
 * effects run twice).
 *
 *   watchTraining: sharedWatch(() => api.onTraining({}, onEvent)),
 */
export function sharedWatch(open: () => () => void): () => () => void {
  let watchers = 0;
  let close: (() => void) | null = null;
  return () => {
    if (watchers++ === 0) close = open();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--watchers === 0) {
        close?.();
        close = null;
      }
    };
  };
}
