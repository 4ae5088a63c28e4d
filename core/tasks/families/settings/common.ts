import type { Action } from '../../../actions/schema.js';
import { launch, scrollTo, type OracleUi } from '../../oracle.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import type { Subgoal } from '../../task.js';
import { clickableAncestor, type UiNode } from '../../../a11y/ui-tree.js';

export const SETTINGS_PKG = 'com.android.settings';
export const SUB_SETTINGS = 'com.android.settings.SubSettings';

/** Opens Settings and walks a path of entries by their titles, scrolling to each. */
export function* openSettingsPath(ui: OracleUi, path: readonly string[]): Generator<Action, void, void> {
  yield* launch(ui, 'Settings');
  for (const title of path) {
    const el = yield* scrollTo(ui, { text: title });
    yield ui.tap(el);
  }
}

/** Whether the switch in the row labelled `label` is on, as a person reads the toggle (its checked state). */
export function switchIsOn(ui: OracleUi, label: string): boolean {
  const el = ui.require({ text: label });
  const find = (n: UiNode): UiNode | undefined => (n.checkable ? n : n.children.map(find).find((x) => x !== undefined));
  return find((clickableAncestor(el) ?? el).node)?.checked ?? false;
}

/** Subgoal: Settings is in front. */
export const settingsOpen: Subgoal = {
  name: 'Settings open',
  check: async ({ obs }) => inActivity(obs, SETTINGS_PKG),
};

/** Subgoal: a Settings page with this title is showing. */
export function pageOpen(title: string): Subgoal {
  return {
    name: `"${title}" page open`,
    check: async ({ obs }) => inActivity(obs, SETTINGS_PKG, SUB_SETTINGS) && onScreen(obs, { resourceId: 'toolbar_title', text: title }),
  };
}

/** Brings a switch row into view (a long page scrolls). */
export function* scrollToSwitch(ui: OracleUi, label: string): Generator<Action, void, void> {
  yield* scrollTo(ui, { text: label });
}

/** Back from a Settings page to the top-level list (Settings keeps its page when opened again). */
export function* backToSettingsTop(ui: OracleUi): Generator<Action, void, void> {
  for (let i = 0; i < 6 && ui.foreground.package === SETTINGS_PKG && ui.foreground.activity === SUB_SETTINGS; i++) yield ui.back();
}
