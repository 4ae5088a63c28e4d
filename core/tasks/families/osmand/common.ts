import type { Action } from '../../../actions/schema.js';
import { type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { OSMAND_PKG } from './osmand-data.js';

/** Oracle moves and subgoals shared by the OsmAnd templates. */
export const APP = 'OsmAnd';

export const osmandOpen: Subgoal = { name: 'OsmAnd open', check: async ({ obs }) => inActivity(obs, OSMAND_PKG) };
export const placeShown: Subgoal = { name: 'the place\'s context menu open', check: async ({ obs }) => onScreen(obs, { resourceId: 'context_menu_line1' }) };

/**
 * Searches a location as the goal names it and opens the first result: "Balzers, Liechtenstein"
 * finds the village; coordinates give a point.
 */
export function* searchAndOpen(ui: OracleUi, location: string): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'Search' });
  yield ui.type({ resourceId: 'searchEditText' }, location);
  yield ui.tap({ resourceId: 'title' });
}
