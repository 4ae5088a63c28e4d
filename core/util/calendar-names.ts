/** English month and weekday names, as Android's en-US locale shows them; one list for the whole project. */
export const MONTH_NAMES = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
] as const;

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** 1..12 for a month's full name (case-insensitive), or 0 when it is not one. */
export function monthNumber(name: string): number {
  return MONTH_NAMES.findIndex((m) => m.toLowerCase() === name.trim().toLowerCase()) + 1;
}
