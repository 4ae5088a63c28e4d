import { createHash } from 'node:crypto';
import { parseUiTree, type UiNode } from '../a11y/ui-tree.js';
import type { ForegroundApp } from '../device/device.js';

/**
 * A screen as alignment compares it: the app (and activity) in front plus a signature of the
 * accessibility tree. Two levels:
 *  - 'exact' (paths of the same task instance): every node's depth, class, resource-id, checked /
 *    selected / enabled state and its text and description, EXCEPT the text of edit fields. Typing
 *    into a field keeps the screen the same state, so a typo does not split the path there (the
 *    taxonomy judges typed text itself); what the typing changed after a commit (a list row, a
 *    title) shows as static text and does split it.
 *  - 'layout' (other instances of the template, whose names and numbers differ): the set of
 *    distinct (depth, class, resource-id, checked) tuples; no text at all, and sets so that lists of
 *    different lengths still match.
 * The status bar (its clock ticks) and the keyboard (it comes and goes with focus) are left out of both.
 */
export type MatchLevel = 'exact' | 'layout';

export interface ScreenState {
  package: string;
  /** Null for an episode's final screen: the store keeps the tree, not the activity, of it. */
  activity: string | null;
  exact: string;
  layout: string;
}

const TRANSIENT_PACKAGES = new Set(['com.android.systemui', 'com.google.android.inputmethod.latin']);
const isEditField = (n: UiNode) => /EditText/.test(n.className);

function walk(nodes: readonly UiNode[], depth: number, visit: (n: UiNode, depth: number) => void): void {
  for (const n of nodes) {
    if (TRANSIENT_PACKAGES.has(n.packageName)) continue;
    visit(n, depth);
    walk(n.children, depth + 1, visit);
  }
}

const digest = (parts: readonly string[]) => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);

/** The app whose window is on top of the tree (the first root that is not the status bar or the keyboard). */
export function treePackage(xml: string): string {
  return parseUiTree(xml).roots.find((r) => !TRANSIENT_PACKAGES.has(r.packageName))?.packageName ?? '';
}

/** The screen state of a tree seen with this app in front (foreground null: the final screen, app read from the tree). */
export function screenState(xml: string, foreground: ForegroundApp | null): ScreenState {
  const tree = parseUiTree(xml);
  const exact: string[] = [];
  const layout = new Set<string>();
  walk(tree.roots, 0, (n, depth) => {
    const state = `${n.checked ? 'C' : ''}${n.selected ? 'S' : ''}${n.enabled ? '' : 'D'}`;
    exact.push(`${depth}|${n.className}|${n.resourceId}|${isEditField(n) ? '' : n.text}|${n.contentDesc}|${state}`);
    layout.add(`${depth}|${n.className}|${n.resourceId}|${n.checked ? 'C' : ''}`);
  });
  const pkg = foreground?.package ?? tree.roots.find((r) => !TRANSIENT_PACKAGES.has(r.packageName))?.packageName ?? '';
  return { package: pkg, activity: foreground?.activity ?? null, exact: digest(exact), layout: digest([...layout].sort()) };
}

/** Same screen at this level: same app, same signature, and the same activity where both are known. */
export function sameScreen(a: ScreenState, b: ScreenState, level: MatchLevel): boolean {
  if (a.package !== b.package || a[level] !== b[level]) return false;
  return a.activity === null || b.activity === null || a.activity === b.activity;
}

/** A short printable key of a state ("com.x/.Activity#3fa2…"), for tables and loops. */
export function stateKey(s: ScreenState, level: MatchLevel = 'exact'): string {
  return `${s.package}#${s[level]}`;
}
