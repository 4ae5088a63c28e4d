import type { Action } from '../../../actions/schema.js';
import type { UiElement, UiSelector } from '../../../a11y/ui-tree.js';
import { OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { VLC_PKG } from './vlc-db.js';

/** Oracle moves and subgoals shared by the VLC templates. */
export const APP = 'VLC';

export const vlcOpen: Subgoal = { name: 'VLC open', check: async ({ obs }) => inActivity(obs, VLC_PKG) };
export const selecting: Subgoal = { name: 'videos being selected', check: async ({ obs }) => inActivity(obs, VLC_PKG) && onScreen(obs, { contentDesc: 'Add to playlist' }) };
export const addDialogOpen: Subgoal = { name: 'Add to playlist dialog open', check: async ({ obs }) => onScreen(obs, { resourceId: 'dialog_playlist_name' }) };

/** A video row as VLC lists it: by its title, the file name without its extension. */
export function videoTitle(file: string): UiSelector {
  return { text: file.replace(/\.[^.]+$/, ''), resourceId: 'title' };
}

/** Finds a row in the current list, scrolling down to its end and then back up. */
export function* findRow(ui: OracleUi, sel: UiSelector): Generator<Action, UiElement, void> {
  for (const dir of ['down', 'up'] as const) {
    for (let i = 0; i < 40; i++) {
      const el = ui.find(sel);
      if (el) return el;
      const before = ui.fingerprint();
      yield ui.scroll(dir);
      if (ui.fingerprint() === before) break;
    }
  }
  const el = ui.find(sel);
  if (el) return el;
  throw new OracleError(`No video row ${JSON.stringify(sel)} in the list`, screenSummary(ui.obs));
}

/**
 * On the Video tab: selects the files in order (a long press on the first, taps on the others),
 * then Add to playlist, the name typed, Save.
 */
export function* createPlaylist(ui: OracleUi, name: string, files: readonly string[]): Generator<Action, void, void> {
  for (const [i, f] of files.entries()) {
    const row = yield* findRow(ui, videoTitle(f));
    yield i === 0 ? ui.longPress(row) : ui.tap(row);
  }
  yield ui.tap({ contentDesc: 'Add to playlist' });
  yield ui.type({ resourceId: 'dialog_playlist_name' }, name);
  yield ui.tap({ resourceId: 'dialog_playlist_save' });
}
