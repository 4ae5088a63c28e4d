/** Exhaustiveness guard for closed unions: a new member that is not handled fails type-checking here. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}

/** Base class for errors whose message should reach a user unchanged (CLI, UI). */
export class WorkbenchError extends Error {
  override name = 'WorkbenchError';
}
