import { SimDroid, type SimDroidOptions } from '../../emulators/simdroid/simdroid.js';
import { boundsCenter, findFirst, flattenUiTree, type UiElement, type UiSelector } from '../../core/a11y/ui-tree.js';

/** Test helpers that drive SimDroid in-process the way a person would: find by text, tap, type. */
export function device(opts: SimDroidOptions = {}): SimDroid {
  return new SimDroid(opts);
}

export function elements(d: SimDroid): UiElement[] {
  return flattenUiTree(d.uiTreeSync());
}

export function find(d: SimDroid, sel: UiSelector): UiElement | undefined {
  return findFirst(elements(d), sel);
}

export function get(d: SimDroid, sel: UiSelector): UiElement {
  const el = find(d, sel);
  if (!el) {
    const texts = elements(d).map((e) => e.node.text || e.node.contentDesc).filter(Boolean);
    throw new Error(`No element ${JSON.stringify(sel)} on screen; texts: ${JSON.stringify(texts)}`);
  }
  return el;
}

export function tap(d: SimDroid, sel: UiSelector): void {
  d.inputSync({ kind: 'tap', ...boundsCenter(get(d, sel).node.bounds) });
}

export function longPress(d: SimDroid, sel: UiSelector): void {
  d.inputSync({ kind: 'long_press', ...boundsCenter(get(d, sel).node.bounds), durationMs: 1000 });
}

/** Taps a field and types into it. */
export function typeInto(d: SimDroid, sel: UiSelector, text: string): void {
  tap(d, sel);
  d.inputSync({ kind: 'text', text });
}

export function scroll(d: SimDroid, direction: 'up' | 'down'): void {
  const { width, height } = d.screen;
  const [y1, y2] = direction === 'down' ? [height * 0.7, height * 0.3] : [height * 0.3, height * 0.7];
  d.inputSync({ kind: 'swipe', x1: width / 2, y1, x2: width / 2, y2, durationMs: 300 });
}

export function texts(d: SimDroid): string[] {
  return elements(d).map((e) => e.node.text).filter(Boolean);
}

export function sh(d: SimDroid, cmd: string): string {
  const r = d.shellBytes(cmd);
  if (r.exitCode !== 0) throw new Error(`\`${cmd}\` exited ${r.exitCode}: ${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}
