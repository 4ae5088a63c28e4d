import { describe, expect, it } from 'vitest';
import { APP_CATALOG } from '../../core/device/app-catalog.js';
import { ALL_APPS } from '../../emulators/simdroid/apps/index.js';

describe('app catalog and SimDroid agree', () => {
  it('installs every catalog app with the same package and launcher activity', () => {
    for (const c of APP_CATALOG) {
      const app = ALL_APPS.find((a) => a.package === c.package);
      expect(app, c.name).toBeDefined();
      expect(app!.launchActivity).toBe(c.activity);
      expect(app!.label).toBe(c.name);
      // The launcher activity is defined, or routes to one that is (a trampoline such as Audio Recorder's WelcomeActivity).
      const opened = app!.trampolines?.[c.activity] ?? c.activity;
      expect(app!.activities.some((a) => a.name === opened), c.name).toBe(true);
    }
  });

  it('has unique packages and activity names', () => {
    const pkgs = ALL_APPS.map((a) => a.package);
    expect(new Set(pkgs).size).toBe(pkgs.length);
    const acts = ALL_APPS.flatMap((a) => a.activities.map((x) => x.name));
    expect(new Set(acts).size).toBe(acts.length);
  });
});
