import { z } from 'zod';
import { defineTask } from '../../task.js';
import { verdictOf } from '../../verdict.js';
import { onScreen } from '../../validators/ui.js';
import { openTaskPage, pageOpen, PREAMBLE, pushTaskPage, requireWeb, successShown, successSubgoal, webElements } from './common.js';
import { multiplyPage } from './pages.js';

/**
 * AndroidWorld's BrowserMultiply: press the page's button five times, remembering each number it
 * shows, then submit their product. The oracle reads each number off the screen before pressing.
 */
const Params = z.object({ numbers: z.array(z.int().min(1).max(10)).length(5) });

export const ChromeMultiply = defineTask({
  id: 'ChromeMultiply',
  apps: ['Chrome', 'Files'],
  difficulty: 'medium',
  maxSteps: 25,
  tags: ['memorization', 'math_counting', 'multi_app'],
  kind: 'completion',
  template: `${PREAMBLE} Then click the button 5 times, remember the numbers displayed, and enter their product in the form.`,
  params: Params,
  generate: (rng) => ({ numbers: Array.from({ length: 5 }, () => rng.int(1, 10)) }),
  initialize: async (device, p) => pushTaskPage(device, multiplyPage(p.numbers)),
  check: async (device) => verdictOf(await successShown(device)),
  subgoals: () => [
    pageOpen,
    { name: 'answer form shown', check: async ({ obs }) => onScreen(obs, { className: 'android.widget.EditText', packageName: 'com.android.chrome' }) && !onScreen(obs, { text: /^\d+$/, packageName: 'com.android.chrome', className: 'android.widget.TextView' }) },
    successSubgoal,
  ],
  *oracle(_p, ui) {
    yield* openTaskPage(ui);
    let product = 1;
    for (let i = 0; i < 5; i++) {
      const shown = requireWeb(ui, 'android.widget.TextView', (e) => /^\d+$/.test(e.node.text), 'the number shown');
      product *= Number(shown.node.text);
      yield ui.tap(requireWeb(ui, 'android.widget.Button', (e) => e.node.text !== 'Submit', "the page's button"));
    }
    const field = webElements(ui, 'android.widget.EditText')[0];
    if (!field) throw new Error('ChromeMultiply oracle: no answer field after five presses');
    yield ui.type(field, String(product));
    yield ui.tap(requireWeb(ui, 'android.widget.Button', (e) => e.node.text === 'Submit', 'Submit'));
    yield ui.complete();
  },
});
