import { condition, holds, listed, type CheckCondition } from '../verdict.js';

/** One field of a record in words: what the expected record says and what a stored one holds. */
export interface RecordField<A, E> {
  name: string;
  want: (e: E) => string;
  got: (a: A) => string;
  /** Whether the stored field matches; equal words unless given. */
  same?: (a: A, e: E) => boolean;
}

/**
 * A kind of record (an expense row, an alarm, a file) as a checker reads it: `same` is the
 * checker's exact test; `fields` say which parts differ when it fails. The first field is the
 * record's identity (its name): a stored record with another identity is not "the same one, changed".
 */
export interface RecordKind<A, E> {
  noun: string;
  label: (e: E) => string;
  labelOf: (a: A) => string;
  fields: readonly [RecordField<A, E>, ...RecordField<A, E>[]];
  same: (a: A, e: E) => boolean;
}

const fieldOk = <A, E>(f: RecordField<A, E>, a: A, e: E) => (f.same ? f.same(a, e) : f.got(a) === f.want(e));

/** The fields of a stored record that differ from the expected one. */
export function fieldDiffs<A, E>(kind: RecordKind<A, E>, a: A, e: E): RecordField<A, E>[] {
  return kind.fields.filter((f) => !fieldOk(f, a, e));
}

/**
 * Why `e` has no match among `left`: one failed condition per differing field of the closest stored
 * record with the same identity ("expense 'Lunch' amount 12.50": found 12.05), or that there is none.
 */
export function missingRecord<A, E>(kind: RecordKind<A, E>, left: readonly A[], e: E, state: string): CheckCondition[] {
  const [identity] = kind.fields;
  const twins = left.filter((a) => fieldOk(identity, a, e));
  const what = `${kind.noun} ${kind.label(e)}`;
  if (twins.length === 0) return [condition(`${what} ${state}`, state, `no ${what}`, false)];
  const closest = twins.reduce((best, a) => (fieldDiffs(kind, a, e).length < fieldDiffs(kind, best, e).length ? a : best));
  const diffs = fieldDiffs(kind, closest, e);
  if (diffs.length === 0) return [condition(`${what} ${state}`, state, 'changed', false)];
  return diffs.map((f) => condition(`${what} ${f.name} ${f.want(e)}`, f.want(e), f.got(closest), false));
}

/**
 * Matching expected records against stored ones as a multiset: each expected record, in order,
 * takes the first distinct stored record `kind.same` accepts (a held condition), or gets the
 * reasons of `missingRecord`; `left` is what no expected record took (the agent's additions).
 */
export function matchRecords<A, E>(kind: RecordKind<A, E>, actual: readonly A[], expected: readonly E[], state: string): { conditions: CheckCondition[]; left: A[] } {
  const left = [...actual];
  const conditions: CheckCondition[] = [];
  for (const e of expected) {
    const i = left.findIndex((a) => kind.same(a, e));
    if (i < 0) {
      conditions.push(...missingRecord(kind, left, e, state));
      continue;
    }
    left.splice(i, 1);
    conditions.push(holds(`${kind.noun} ${kind.label(e)} ${state}`, true));
  }
  return { conditions, left };
}

/** Nothing else stored: found names the records no expected one took. */
export function noOthers<A>(kind: Pick<RecordKind<A, never>, 'noun' | 'labelOf'>, left: readonly A[], what = `other ${kind.noun}s`): CheckCondition {
  return condition(`no ${what}`, 'none', listed(left.map(kind.labelOf)));
}

/**
 * The stored records are exactly the expected ones (a multiset, nothing more): the conditions of
 * `matchRecords` and `noOthers`.
 */
export function exactRecords<A, E>(kind: RecordKind<A, E>, actual: readonly A[], expected: readonly E[], state: string): CheckCondition[] {
  const { conditions, left } = matchRecords(kind, actual, expected, state);
  return [...conditions, noOthers(kind, left)];
}

/** A kind whose exact test is every field matching. */
export function recordKind<A, E>(noun: string, label: (e: E) => string, labelOf: (a: A) => string, fields: RecordKind<A, E>['fields']): RecordKind<A, E> {
  return { noun, label, labelOf, fields, same: (a, e) => fields.every((f) => fieldOk(f, a, e)) };
}

/**
 * Records that must stay untouched (`kept`, by `keptKind`), then the ones the task asks for among
 * the rest (`wanted`, by `kind`), and nothing else: "noise kept, target added/edited, no other".
 */
export function keptThenWanted<A, K, E>(actual: readonly A[], keptKind: RecordKind<A, K>, kept: readonly K[], kind: RecordKind<A, E>, wanted: readonly E[], state: string): CheckCondition[] {
  const untouched = matchRecords(keptKind, actual, kept, 'unchanged');
  const found = matchRecords(kind, untouched.left, wanted, state);
  return [...untouched.conditions, ...found.conditions, noOthers(kind, found.left, `other new or changed ${kind.noun}s`)];
}
