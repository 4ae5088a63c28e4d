import type { Device, ForegroundApp, ScreenInfo } from './device.js';
import { flattenUiTree, type UiElement, type UiTree } from '../a11y/ui-tree.js';

/** What an agent sees at one step. `elements` is the tree in document order: action indices point into it. */
export interface Observation {
  screen: ScreenInfo;
  tree: UiTree;
  elements: UiElement[];
  foreground: ForegroundApp;
  /** PNG bytes, when asked for. */
  screenshot?: Buffer;
}

export interface ObserveOptions {
  screenshot?: boolean;
  scale?: 1 | 0.5;
}

export async function observe(device: Device, opts: ObserveOptions = {}): Promise<Observation> {
  // The screenshot is asked for first: it takes longest, and a device (SimDroid, a phone) can
  // dump the tree while it encodes.
  const [screenshot, screen, tree, foreground] = await Promise.all([
    opts.screenshot ? device.screenshot({ scale: opts.scale ?? 1 }) : Promise.resolve(undefined),
    device.screenInfo(),
    device.uiTree(),
    device.foreground(),
  ]);
  const obs: Observation = { screen, tree, elements: flattenUiTree(tree), foreground };
  if (screenshot) obs.screenshot = screenshot;
  return obs;
}

/** The focused editable field, if any: typing without an element index goes there. */
export function focusedField(obs: Observation): UiElement | undefined {
  return obs.elements.find((e) => e.node.focused && e.node.className === 'android.widget.EditText');
}
