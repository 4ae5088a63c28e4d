import { closeDom } from './dom.js';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createRun, type EpisodeId, type RunId } from '../../core/store/index.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { TrajectoriesView } from '../../renderer/src/views/trajectories/TrajectoriesView.js';
import { backInsteadOfSave } from '../analysis/policies.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, tempDir } from '../store/helpers.js';

/**
 * The Trajectories view's failure analysis in a DOM, against the real workbench over the API bridge,
 * on real SimDroid episodes: run "before" holds a Contacts failure (back instead of Save) and a
 * Wi-Fi success; run "after" the oracle's success of the same Contacts instance.
 */
const tmp = tempDir('awb-ui-failures-');
let workbench: Workbench;
let store: AppStore;
let root: Root;
let before: RunId;
let after: RunId;
let failed: EpisodeId;
let fixedBy: EpisodeId;

const q = (id: string) => document.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
const text = (id: string) => q(id)?.textContent ?? '';
const rowIds = () => [...document.querySelectorAll('[data-testid^="episode-row-"]')].map((r) => Number((r as HTMLElement).dataset.testid!.slice(12)));

/** Lets the bridge and React settle until `ok` holds (the workbench answers asynchronously). */
async function until(ok: () => boolean, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries && !ok(); i++) await act(async () => { await new Promise((r) => setTimeout(r, 5)); });
  if (!ok()) throw new Error(`Timed out waiting for ${what}`);
}

beforeAll(async () => {
  workbench = await createWorkbench({ dataDir: tmp.dir, adb: false, embeddedDevice: false });
  before = createRun(workbench.db, { kind: 'suite', name: 'before' }).id;
  after = createRun(workbench.db, { kind: 'suite', name: 'after' }).id;
  const d = device();
  try {
    failed = (await recordEpisode(workbench.db, before, d, 'ContactsAddContact', 1, backInsteadOfSave())).id;
    await recordEpisode(workbench.db, before, d, 'SystemWifiTurnOn', 1);
    fixedBy = (await recordEpisode(workbench.db, after, d, 'ContactsAddContact', 1)).id;
  } finally {
    d.close();
  }
  const [client, server] = channelPair();
  serveApi(workbench, server);
  store = createAppStore(connectApi<WorkbenchApi>(client));
  setAppStore(store);
  store.getState().setView('trajectories');
  const host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  await act(async () => root.render(createElement(TrajectoriesView)));
  await until(() => rowIds().length === 3, 'the episode list');
});

afterAll(async () => {
  await act(async () => root.unmount());
  await workbench.close();
  tmp.cleanup();
  await closeDom();
});

describe('the Explain panel of a failed episode', () => {
  it('shows the class, the divergence with both actions and screens, and the tree diff; a click jumps there', async () => {
    await act(async () => store.getState().openEpisode(failed));
    await until(() => q('explain-class') !== null, 'the explanation');
    expect(q('explain-class')!.dataset.class).toBe('not_committed');
    expect(text('explain-class')).toMatch(/^not committed — reached the screen where episode \d+ tapped/);
    expect(text('explain-other-classes')).toContain('declared done early');
    expect(text('explain-divergence')).toBe('First divergence: Step 7 left every successful path');
    // Both sides: the action each took from the shared screen, and the screen it led to (stored screenshots).
    expect(text('explain-failed')).toContain('This episode: Go back in Contacts → step 8');
    expect(text('explain-reference')).toContain(`episode ${fixedBy}: Tap "Save" in Contacts → step 7`);
    await until(() => !!q('explain-failed-screen')?.querySelector('img') && !!q('explain-reference-screen')?.querySelector('img'), 'both screenshots');
    expect(text('explain-diff-removed')).toContain('"Zoe Ito"');
    // Rewards beside the success: a milestone the success reached and this episode missed; no ProgRM model or judge fitted here.
    expect(document.querySelectorAll('[data-testid^="explain-milestone-"][data-reached="false"][data-reference-reached="true"]').length).toBeGreaterThan(0);
    expect(text('explain-rewards-progrm')).toMatch(/^ProgRM: ProgRmModelMissingError: No ProgRM model at .*awb rewards fit progrm/);
    expect(text('explain-rewards-shepherd')).toMatch(/awb rewards fit shepherd/);

    expect(store.getState().replayStep).toBe(0);
    await act(async () => q('explain-divergence')!.click());
    await until(() => text('replay-position') === 'step 7 of 8', 'the timeline at step 7');
    expect(store.getState().replayStep).toBe(6);
  });

  it('says a person chose the step that left, where an override did (not "this episode"), and draws a side without a screenshot from its tree', async () => {
    workbench.db.prepare('UPDATE steps SET overridden = 1 WHERE episode_id = ? AND idx = 6').run(failed);
    // The screen step 7 led to, as if recorded without a screenshot (a GRPO rollout by default).
    const shot = workbench.db.prepare('SELECT screenshot FROM steps WHERE episode_id = ? AND idx = 7').pluck().get(failed);
    workbench.db.prepare('UPDATE steps SET screenshot = NULL WHERE episode_id = ? AND idx = 7').run(failed);
    try {
      await act(async () => store.getState().refreshTrajectory(failed));
      await act(async () => store.getState().explainEpisode(failed));
      await until(() => text('explain-divergence').includes('override'), 'the person\'s divergence');
      expect(text('explain-divergence')).toBe("First divergence: Step 7, a person's override, left every successful path");
      expect(text('explain-failed')).toContain('A person (override): Go back in Contacts → step 8');
      expect(text('replay-explain')).toContain("step 7, where it left the successful paths, was a person's override, not the policy's choice");
      await until(() => !!q('explain-failed-screen')?.querySelector('[data-testid="wireframe"]'), 'the wireframe of the failed side');
    } finally {
      workbench.db.prepare('UPDATE steps SET overridden = 0 WHERE episode_id = ?').run(failed);
      workbench.db.prepare('UPDATE steps SET screenshot = ? WHERE episode_id = ? AND idx = 7').run(shot, failed);
    }
  });

  it('is absent for a successful episode', async () => {
    await act(async () => store.getState().openEpisode(fixedBy));
    await until(() => text('replay-status') === 'success', 'the success');
    expect(q('replay-explain')).toBeNull();
    await act(async () => store.getState().closeEpisode());
  });
});

describe('the Failures panel of a run', () => {
  it('tables the run by class × app × template × difficulty; a click on a count lists those episodes', async () => {
    expect(q('failures-panel')).toBeNull();
    await act(async () => store.getState().setEpisodeQuery({ runId: before }));
    // On demand: nothing is classified until asked, and the bound is shown.
    await until(() => q('failures-idle') !== null && rowIds().length === 2, 'the Failures panel of run before');
    expect(text('failures-idle')).toBe('Classify the newest 500 failed episodes of this run by failure class.');
    expect(store.getState().failures).toBeNull();
    await act(async () => q('failures-analyse')!.click());
    await until(() => q('failures-table') !== null, 'the taxonomy of run before', 4000);
    expect(text('failures-summary')).toBe('1 of 2 episodes failed: not committed 1');
    expect([...q('failures-cell-0')!.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['not committed', 'Contacts', 'ContactsAddContact', 'easy', '1']);
    await act(async () => q('failures-cell-0-count')!.click());
    await until(() => rowIds().length === 1, 'the cell\'s episodes');
    expect(rowIds()).toEqual([failed]);
    expect(text('filter-cell')).toContain('not committed · ContactsAddContact (easy)');
    await act(async () => q('filter-cell-clear')!.click());
    await until(() => rowIds().length === 2, 'the whole run again');
  });

  it('with a second run chosen, lists the instances that flipped with their classes', async () => {
    const vs = q('failures-vs') as HTMLSelectElement;
    await act(async () => {
      vs.value = String(after);
      vs.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await until(() => q('failures-fixed') !== null, 'the flips');
    expect(text('failures-flips')).toContain('1 instances in both runs');
    expect(text('failures-fixed')).toContain(`Fixed in #${after} (1)`);
    expect(text('failures-fixed')).toMatch(new RegExp(`ContactsAddContact1failure \\(not committed\\) #${failed}success #${fixedBy}`));
    expect(text('failures-broke')).toContain('(0)none');
    await act(async () => q(`flip-episode-${failed}`)!.click());
    await until(() => store.getState().replay?.episodeId === failed && q('explain-class') !== null, 'the flipped episode open');
  });
});
