import type { Observation } from '../../device/observation.js';
import { findFirst, type UiSelector } from '../../a11y/ui-tree.js';

/** Subgoal checks over the screen: which app and activity, and what is shown. */
export function inActivity(obs: Observation, pkg: string, activity?: string): boolean {
  return obs.foreground.package === pkg && (activity === undefined || obs.foreground.activity === activity);
}

export function onScreen(obs: Observation, sel: UiSelector): boolean {
  return findFirst(obs.elements, sel) !== undefined;
}

/** An EditText on screen currently holds this text (typed, not yet saved). */
export function fieldHolds(obs: Observation, text: string): boolean {
  const want = text.trim().toLowerCase();
  return obs.elements.some((e) => e.node.className === 'android.widget.EditText' && e.node.text.trim().toLowerCase() === want);
}
