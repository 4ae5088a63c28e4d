import type { Device } from '../../../device/device.js';
import { shellOk } from '../../../device/device.js';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { findAll } from '../../../a11y/ui-tree.js';
import { OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { SDCARD, writeText } from '../../validators/files.js';
import { inActivity } from '../../validators/ui.js';
import { condition, holds, type CheckCondition } from '../../verdict.js';
import { openFolder, TITLE } from '../files/files-helpers.js';

/**
 * What the Chrome templates share: the task page pushed to Download (as AndroidWorld's BrowserTask
 * does, after clearing Chrome's data), the check that Chrome shows "Success!", and the oracle's way
 * in: the page opened from the Files app, as the goal's preamble says.
 */
export const CHROME_PKG = 'com.android.chrome';
export const TASK_PAGE = `${SDCARD}/Download/task.html`;
export const PREAMBLE = 'Open the file task.html in Downloads in the file manager; when prompted open it with Chrome.';

export async function pushTaskPage(device: Device, html: string): Promise<void> {
  await shellOk(device, `pm clear ${CHROME_PKG}`);
  await writeText(device, TASK_PAGE, html);
}

/** AndroidWorld's BrowserTask check: Chrome in front and an element reading "Success!". */
export async function successShown(device: Device): Promise<CheckCondition[]> {
  const [fg, tree] = await Promise.all([device.foreground(), device.uiTree()]);
  const texts: string[] = [];
  const walk = (n: { text: string; children: readonly { text: string; children: readonly unknown[] }[] }) => {
    texts.push(n.text);
    for (const c of n.children) walk(c as never);
  };
  for (const r of tree.roots) walk(r);
  return [condition('app in front', CHROME_PKG, fg.package), holds('page shows "Success!"', texts.includes('Success!'))];
}

export const pageOpen: Subgoal = {
  name: 'task page open in Chrome',
  check: async ({ obs }) => inActivity(obs, CHROME_PKG) && findAll(obs.elements, { resourceId: 'com.android.chrome:id/url_bar', textContains: 'task.html' }).length > 0,
};

export const successSubgoal: Subgoal = { name: 'Success! shown', check: async ({ obs }) => inActivity(obs, CHROME_PKG) && findAll(obs.elements, { text: 'Success!' }).length > 0 };

/** Files › Download › task.html, which opens in Chrome. */
export function* openTaskPage(ui: OracleUi): Generator<Action, void, void> {
  yield* openFolder(ui, ['Download']);
  yield ui.tap(TITLE('task.html'));
}

/** The page's own elements (inside Chrome's web content), not Chrome's toolbar. */
export function webElements(ui: OracleUi, className: string): UiElement[] {
  return ui.findAll({ className, packageName: CHROME_PKG }).filter((e) => !e.node.resourceId.endsWith(':id/url_bar'));
}

export function requireWeb(ui: OracleUi, className: string, pick: (e: UiElement) => boolean, what: string): UiElement {
  const el = webElements(ui, className).find(pick);
  if (!el) throw new OracleError(`Oracle could not find ${what} on the page`, screenSummary(ui.obs));
  return el;
}
