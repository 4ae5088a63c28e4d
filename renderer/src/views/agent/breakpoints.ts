import type { Breakpoint, BreakpointSpec } from '../../../../core/api/types.js';

/**
 * Breakpoint kinds as the Agent view offers them (core/episode/breakpoints.ts BreakpointSpec), how
 * each reads, and building one from the add form's fields with a clear error for a bad value.
 */
export type BreakpointKind = BreakpointSpec['kind'];
type ActionTypeName = Extract<BreakpointSpec, { kind: 'action_type' }>['actionType'];

export const BREAKPOINT_KINDS: ReadonlyArray<{ kind: BreakpointKind; label: string; param: string | null }> = [
  { kind: 'action_type', label: 'Action type is', param: 'action type' },
  { kind: 'invalid_action', label: 'Invalid action', param: null },
  { kind: 'low_confidence', label: 'Confidence below', param: 'probability 0–1' },
  { kind: 'app', label: 'App in front', param: 'app name or package' },
  { kind: 'step', label: 'At step', param: 'step number (1-based)' },
  { kind: 'terminal', label: 'Ending action (answer/status)', param: null },
];

export const ACTION_TYPE_NAMES = [
  'click', 'long_press', 'double_tap', 'scroll', 'swipe', 'input_text', 'keyboard_enter', 'navigate_back',
  'navigate_home', 'open_app', 'wait', 'answer', 'status', 'press_key',
] as const satisfies readonly ActionTypeName[];
// A new action type in the core must be listed here: this fails to compile until it is.
const everyActionType: Exclude<ActionTypeName, (typeof ACTION_TYPE_NAMES)[number]> extends never ? true : never = true;
void everyActionType;

/** An id not in the list (a session opened after a reload keeps the ids an earlier page gave). */
export function freshBreakpointId(list: readonly Breakpoint[]): string {
  const taken = new Set(list.map((b) => b.id));
  let n = list.length + 1;
  while (taken.has(`bp${n}`)) n++;
  return `bp${n}`;
}

export class BreakpointInputError extends Error {
  override name = 'BreakpointInputError';
}

export function describeBreakpoint(spec: BreakpointSpec): string {
  switch (spec.kind) {
    case 'invalid_action':
      return 'Invalid action';
    case 'low_confidence':
      return `Confidence < ${spec.below}`;
    case 'app':
      return `App: ${spec.app}`;
    case 'action_type':
      return `Action: ${spec.actionType}`;
    case 'step':
      return `Step ${spec.index + 1}`;
    case 'terminal':
      return 'Ending action';
  }
}

/** The spec for the add form's kind and text field; throws BreakpointInputError for a bad value. */
export function specFrom(kind: BreakpointKind, value: string): BreakpointSpec {
  const v = value.trim();
  switch (kind) {
    case 'invalid_action':
    case 'terminal':
      return { kind };
    case 'low_confidence': {
      const below = Number(v);
      if (v === '' || !Number.isFinite(below) || below < 0 || below > 1) throw new BreakpointInputError(`Confidence threshold must be a number from 0 to 1, not ${JSON.stringify(value)}`);
      return { kind, below };
    }
    case 'app':
      if (!v) throw new BreakpointInputError('Give an app name (e.g. Settings) or package');
      return { kind, app: v };
    case 'action_type':
      if (!(ACTION_TYPE_NAMES as readonly string[]).includes(v)) throw new BreakpointInputError(`Unknown action type ${JSON.stringify(value)}: one of ${ACTION_TYPE_NAMES.join(', ')}`);
      return { kind, actionType: v as ActionTypeName };
    case 'step': {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 1) throw new BreakpointInputError(`Step must be a whole number from 1, not ${JSON.stringify(value)}`);
      return { kind, index: n - 1 };
    }
  }
}
