import { z } from 'zod';
import { requireApp } from '../../../device/app-catalog.js';
import { launch } from '../../oracle.js';
import { SPLIT_DATA } from '../../splits.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { inActivity } from '../../validators/ui.js';
import { condition, verdictOf } from '../../verdict.js';

/**
 * Open an app by name and clear its first-run prompts (AndroidWorld's OpenAppTaskEval, which draws
 * camera, clock, contacts, settings or the dialer). Filed under Settings as the system's own task;
 * the app is drawn outside the unseen-app test set, so the template stays on the training side.
 */
const AW_APPS = ['Camera', 'Clock', 'Contacts', 'Settings', 'Phone'] as const;
const OPENABLE = AW_APPS.filter((a) => !(SPLIT_DATA.unseenApp.testApps as readonly string[]).includes(a));

const OpenAppParams = z.object({ app: z.string().refine((a) => { try { requireApp(a); return true; } catch { return false; } }, 'an app of the catalog') });

export const OpenApp = defineTask({
  id: 'SystemOpenApp',
  apps: ['Settings'],
  difficulty: 'easy',
  // The goal's pop-ups are its dialogs (first-run prompts).
  tags: ['dialog'],
  kind: 'completion',
  template: 'Open the {app} app. Clear any pop-ups that may appear by granting all permissions that are required.',
  params: OpenAppParams,
  generate: (rng) => ({ app: rng.pick(OPENABLE) }),
  initialize: async () => {},
  check: async (device, p) => verdictOf([condition(`${p.app} in front`, requireApp(p.app).package, (await device.foreground()).package)]),
  subgoals: (p) => [{ name: `${p.app} open`, check: async ({ obs }) => inActivity(obs, requireApp(p.app).package) }],
  *oracle(p, ui) {
    yield* launch(ui, p.app);
    yield ui.complete();
  },
});

export const OPEN_APP_TASKS: readonly TaskTemplate[] = [OpenApp];
