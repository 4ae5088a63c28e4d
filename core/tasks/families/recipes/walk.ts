import type { Action } from '../../../actions/schema.js';
import { clickableAncestor, type UiElement } from '../../../a11y/ui-tree.js';
import { launch, OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { APP, overflow } from './common.js';

/**
 * Going through Broccoli's recipe cards one by one, as a person does when cards look alike: each
 * card is opened in list order, and the list is moved by short swipes (less than a card's height),
 * so the card last opened is still recognisable by where it went. Identical-looking cards (same
 * title and description) are told apart by their place in the list, never by stored data.
 */
export interface Card {
  title: string;
  description: string;
  el: UiElement;
  top: number;
  bottom: number;
}

const LIST = { resourceId: 'recycler_view' };

/**
 * The cards wholly inside the list's viewport, top to bottom. Bounds are clipped at the viewport's
 * edges (as uiautomator's are): a card shows its padding around its photo unless it is cut there.
 */
export function cardsOnScreen(ui: OracleUi): Card[] {
  const inCard = (card: UiElement, id: string) => ui.findAll({ resourceId: id }).find((e) => clickableAncestor(e)?.node === card.node)?.node.text;
  return ui.findAll({ resourceId: 'card_image' }).flatMap((img) => {
    const b = img.node.bounds;
    const card = clickableAncestor(img);
    if (!card || b.top - card.node.bounds.top < 8 || card.node.bounds.bottom - b.bottom < 8) return [];
    const title = inCard(card, 'card_text_view_title');
    if (title === undefined) return [];
    return [{ title, description: inCard(card, 'card_text_view_description') ?? '', el: card, top: card.node.bounds.top, bottom: card.node.bounds.bottom }];
  }).sort((a, b) => a.top - b.top);
}

/**
 * Everything the details screen says about the recipe: its lines as the top of the page shows
 * them, and (when the page scrolls) as its end shows them. Two recipes with the same content read
 * the same, line for line.
 */
export function* readDetails(ui: OracleUi): Generator<Action, string, void> {
  const ids = /:id\/(details_\w+|ingredient_\w+|direction_\w+)$/;
  const lines = () => ui.obs.elements.filter((e) => ids.test(e.node.resourceId) && e.node.text).map((e) => `${e.node.resourceId}|${e.node.text}`).join('\n');
  const top = lines();
  if (!ui.find({ resourceId: 'scroll_view' })?.node.scrollable) return top;
  for (let i = 0; i < 20; i++) {
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'scroll_view' });
    if (ui.fingerprint() === before) break;
  }
  return `${top}\n--\n${lines()}`;
}

/** What a visit decided: the card is gone (deleted) or stays. */
export type Visit = 'deleted' | 'kept';

/**
 * Visits the cards of the current list (the whole list, or a search's results) in order from its
 * top: `visit` gets the card on screen and returns after coming back to the list; cards for which
 * `want` is false are passed without opening. A deletion ends the walk (the list shrank, and may
 * have moved): the result says so, and the caller walks again.
 */
export function* walkCards(ui: OracleUi, want: (c: Card) => boolean, visit: (c: Card) => Generator<Action, Visit, void>): Generator<Action, 'done' | 'deleted', void> {
  yield* toTop(ui);
  // The top (px) of the last card visited, on the current screen; cards below it come next.
  let last = -Infinity;
  for (let guard = 0; guard < 400; guard++) {
    const cards = cardsOnScreen(ui);
    const next = cards.find((c) => c.top > last + 1);
    if (next) {
      last = next.top;
      if (want(next) && (yield* visit(next)) === 'deleted') return 'deleted';
      continue;
    }
    const list = ui.find(LIST);
    if (!list || cards.length === 0) return 'done';
    // Less than the smallest card: after the swipe, the card last visited is the only one near where it was.
    const height = Math.min(...cards.map((c) => c.bottom - c.top));
    const travel = Math.floor(height * 0.75);
    const x = Math.round((list.node.bounds.left + list.node.bounds.right) / 2);
    const y0 = Math.round(list.node.bounds.bottom - height * 0.25);
    const before = ui.fingerprint();
    const tops = cards.map((c) => c.top);
    yield { action_type: 'swipe', start: [x, y0], end: [x, y0 - travel], duration_ms: 600 };
    if (ui.fingerprint() === before) return 'done';
    const moved = cardsOnScreen(ui).map((c) => c.top);
    last -= tops.length && moved.length ? bestShift(tops, moved, travel) : travel;
  }
  throw new OracleError('Gave up walking the recipe list', screenSummary(ui.obs));
}

/** Scrolls the list back to its first card. */
function* toTop(ui: OracleUi): Generator<Action, void, void> {
  for (let i = 0; i < 60 && ui.exists(LIST); i++) {
    const before = ui.fingerprint();
    yield ui.scroll('up', LIST);
    if (ui.fingerprint() === before) return;
  }
}

/** The upward shift (0..travel px) that lines up most card tops before and after a swipe. */
function bestShift(before: readonly number[], after: readonly number[], travel: number): number {
  let best = travel;
  let votes = -1;
  for (const b of before) {
    for (const a of after) {
      const d = b - a;
      if (d < 0 || d > travel + 2) continue;
      const n = before.filter((x) => after.some((y) => Math.abs(x - d - y) <= 2)).length;
      if (n > votes) {
        votes = n;
        best = d;
      }
    }
  }
  return best;
}

/** From the details screen: overflow › Delete, confirm; Broccoli goes back to the list. */
export function* deleteOpenRecipe(ui: OracleUi): Generator<Action, void, void> {
  yield* overflow(ui, 'Delete');
  yield ui.tap({ text: 'Delete' });
}

/**
 * Opens the cards `consider` picks, in list order, and deletes each whose details `doomed` condemns
 * (it sees the details as text and is told them in order). After a deletion the walk starts again
 * from the top, passing the cards already read without opening them (the ones above a deleted
 * card keep their places).
 */
function* deleteWhere(ui: OracleUi, consider: (c: Card) => boolean, doomed: (details: string) => boolean): Generator<Action, void, void> {
  let read = 0;
  for (let pass = 0; pass < 60; pass++) {
    let passed = 0;
    const result = yield* walkCards(ui, (c) => consider(c) && passed++ >= read, function* (c) {
      yield ui.tap(c.el);
      const details = `${yield* readDetails(ui)}\n${ui.exists({ contentDesc: 'Remove from favorites' }) ? 'favorite' : ''}`;
      if (doomed(details)) {
        yield* deleteOpenRecipe(ui);
        return 'deleted';
      }
      read++;
      yield ui.tap({ contentDesc: 'Navigate up' });
      return 'kept';
    });
    if (result === 'done') return;
  }
}

/**
 * Deletes all but one of each set of exact duplicates: every title shown more than once is
 * searched, and its cards are opened in turn; a card whose details match one already seen is deleted.
 */
export function* deleteDuplicateRecipes(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, APP);
  const titles = yield* readTitles(ui);
  const repeated = [...titles.entries()].filter(([, n]) => n > 1).map(([t]) => t);
  for (const title of repeated) {
    if (!ui.exists({ resourceId: 'search_src_text' })) yield ui.tap({ contentDesc: 'Search' });
    yield ui.type({ resourceId: 'search_src_text' }, title, { clear: true });
    // The keyboard away first: the list keeps one size while its cards are visited.
    yield ui.back();
    const seen = new Set<string>();
    yield* deleteWhere(ui, (c) => c.title === title, (details) => {
      if (seen.has(details)) return true;
      seen.add(details);
      return false;
    });
  }
}

/** Deletes every recipe whose directions mention `words` (case aside), reading each recipe. */
export function* deleteRecipesWhoseDirectionsMention(ui: OracleUi, words: string): Generator<Action, void, void> {
  yield* launch(ui, APP);
  const want = words.toLowerCase();
  yield* deleteWhere(ui, () => true, (details) => details.split('\n').some((l) => /:id\/direction_text\|/.test(l) && l.toLowerCase().includes(want)));
}

/** How many cards carry each title, walking the whole list. */
function* readTitles(ui: OracleUi): Generator<Action, Map<string, number>, void> {
  const counts = new Map<string, number>();
  yield* walkCards(ui, (c) => {
    counts.set(c.title, (counts.get(c.title) ?? 0) + 1);
    return false;
  }, function* () { return 'kept' as const; });
  return counts;
}
