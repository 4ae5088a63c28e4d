import { z } from 'zod';
import { randomRecipes } from '../../../seed-data/recipes.js';
import { OracleError, screenSummary } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answeredWords, answerListMatches } from '../../validators/answers.js';
import { broccoliOpen, detailsOpen, openRecipe, Recipe } from './common.js';
import { resetRecipes } from './recipes-db.js';
import { holds, verdictOf } from '../../verdict.js';

/**
 * "Which ingredients does {title} need?": read the recipe's ingredient list in Broccoli. The
 * answer lists them separated by commas, in any order, either as names ("tuna") or as the whole
 * lines ("1 can tuna"); a missing or extra ingredient fails.
 */
const Params = z.object({ target: Recipe, names: z.array(z.string().min(1)).min(1), noise: z.array(Recipe) });

/** "1 can tuna" → "tuna": the name the details screen shows after the quantity. */
const QUANTITY = /^(?:\d+(?:[.,/]\d+)?)(?:\s*(?:g|kg|ml|l|tbsp|tsp|cups?|pinch|cloves?|cans?|slices?|bunch|heads?|stalks?)\b)?\s+/i;

export function ingredientName(line: string): string {
  return line.trim().replace(QUANTITY, '');
}

export const IngredientsQuestion = defineTask({
  id: 'RecipeIngredientsQuestion',
  apps: ['Broccoli'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What ingredients does the recipe {title} need according to the Broccoli app? List them separated by commas.',
  params: Params,
  generate: (rng) => {
    const [target, ...noise] = randomRecipes(rng, 1 + rng.int(5, 9));
    return { target: target!, names: target!.ingredients.split('\n').map(ingredientName), noise };
  },
  instruction: (p) => `What ingredients does the recipe ${p.target.title} need according to the Broccoli app? List them separated by commas.`,
  initialize: async (device, p) => resetRecipes(device, [...p.noise, p.target]),
  check: async (_device, p, episode) => verdictOf([holds(`answer lists the ingredients of ${p.target.title}`, answerListMatches(episode.answer, p.names) || answerListMatches(episode.answer, p.target.ingredients.split('\n')), { expected: p.names.join(', '), found: answeredWords(episode.answer) })]),
  subgoals: (p) => [broccoliOpen, detailsOpen(p.target.title)],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.target.title);
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      for (const el of ui.findAll({ resourceId: 'ingredient_text' })) if (!names.includes(el.node.text)) names.push(el.node.text);
      // Past the list once the Directions header shows.
      if (ui.exists({ text: 'Directions' })) {
        yield ui.answer(names.join(', '));
        return;
      }
      yield ui.scroll('down');
    }
    throw new OracleError('Never reached the end of the ingredients', screenSummary(ui.obs));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [IngredientsQuestion];
