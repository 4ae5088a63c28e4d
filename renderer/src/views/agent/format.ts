/** Compact JSON for an action (the log and the proposal show it verbatim). */
export function actionJson(action: unknown): string {
  try {
    return JSON.stringify(action) ?? String(action);
  } catch {
    return String(action);
  }
}

export function percent(p: number): string {
  return `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`;
}
