// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { parseUiTree } from '../../core/a11y/ui-tree.js';
import type { EpisodeFilter, EpisodePage, EpisodeSummary, StoredStep, Trajectory } from '../../core/api/types.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { TrajectoriesView } from '../../renderer/src/views/trajectories/TrajectoriesView.js';
import { ROW_HEIGHT } from '../../renderer/src/views/trajectories/EpisodeTable.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const N = 10_000;
const STATUSES = ['success', 'failure'] as const;

/** Episode i of a made-up store, newest first (id N - i). */
function summary(i: number): EpisodeSummary {
  const id = N - i;
  return {
    id, uid: `u${id}`, templateId: 'ContactsAddContact', app: 'Contacts', difficulty: 'easy', seed: id, instruction: `Add contact ${id}`,
    policy: 'oracle', status: STATUSES[id % 2]!, steps: 3, startedAt: 1_700_000_000_000 + id * 1000, durationMs: 1200,
    overriddenSteps: id === N ? 1 : 0,
    reason: STATUSES[id % 2] === 'failure' ? `contact Ann Lee has number ${id}: expected ${id}, found no contact named Ann Lee` : null,
  } as EpisodeSummary;
}

const XML = '<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">'
  + '<node class="android.widget.Button" text="Save" clickable="true" bounds="[100,200][500,300]" /></node></hierarchy>';

function step(index: number, screenshot: string | null): StoredStep {
  return {
    index, raw: {}, action: { action_type: 'click', index: 1 }, description: `Tap "Save" #${index}`, foreground: { package: 'p', activity: 'a' },
    timings: { observeMs: 1, policyMs: 2, actMs: 3, settleMs: 4 }, startedAt: 0, screenshot, tree: 'b'.repeat(64),
    target: { ordinal: 1, bounds: { left: 100, top: 200, right: 500, bottom: 300 }, label: 'Save' }, thought: `thinking ${index}`,
    // As the builtin policy recorded them before steps kept a probability: its score was the probability (a store row
    // without one is read this way, core/episode/confidence.ts storedCandidates).
    candidates: [{ action: { action_type: 'click', index: 1 }, score: 0.97, probability: 0.97 }, { action: { action_type: 'navigate_back' }, score: 0.03, probability: 0.03 }],
    rewards: index === 2 ? { outcome: { value: 1, explanation: 'checker: success' } } : {},
    // An outside agent's step 2 came with its prompt (the screenshot in it as a 1.5 MB data URL) and its model's reply.
    ...(index === 1 ? { prompt: BIG_PROMPT, reply: 'Thought: save it\nAction: click(start_box=(300,250))' } : {}),
  };
}

const BIG_PROMPT = JSON.stringify([
  { role: 'user', content: [{ type: 'text', text: 'Add a contact' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${'QUJD'.repeat(500_000)}` } }] },
]);

/** A fake API over N episodes; the last two steps of every episode were recorded without screenshots. */
function fakeApi() {
  const calls: Array<{ m: string; a: any }> = [];
  const api = {
    onActivity: () => () => {},
    listEpisodes: async (f: EpisodeFilter): Promise<EpisodePage> => {
      calls.push({ m: 'listEpisodes', a: f });
      const all = f.status ? N / 2 : N;
      const rows: EpisodeSummary[] = [];
      for (let i = f.offset ?? 0; i < Math.min(all, (f.offset ?? 0) + (f.limit ?? 50)); i++) rows.push(summary(i));
      return { rows, total: all, counts: { success: N / 2, failure: N / 2, error: 0, running: 0, interrupted: 0 } };
    },
    episodeFacets: async () => ({ templates: ['ContactsAddContact'], apps: ['Contacts'], policies: ['oracle'], runs: [{ id: 1, name: 'nightly', kind: 'suite', iterations: [] }] }),
    getTrajectory: async ({ episodeId }: { episodeId: number }): Promise<Trajectory> => {
      calls.push({ m: 'getTrajectory', a: episodeId });
      return {
        episode: {
          id: episodeId, uid: 'u', runId: 1, policy: 'oracle', status: 'failure', success: false, terminatedBy: 'status', answer: null, error: null,
          verdict: { ok: false, conditions: [
            { name: 'number of contacts', ok: true, expected: '4', found: '4' },
            { name: 'contact Ann Lee has number 2412043170', ok: false, expected: '2412043170', found: '2412043107' },
          ] },
          stepsCount: 3, maxSteps: 20, startedAt: 0, finishedAt: 1000, timings: null, device: { serial: 's', width: 1080, height: 2400, density: 420 },
        },
        instance: { templateId: 'ContactsAddContact', seed: 1, params: {}, instruction: 'Add a contact', template: {} },
        steps: [step(0, 'a'.repeat(64)), step(1, null), step(2, null)],
        final: { screenshot: null, tree: 'b'.repeat(64) },
      } as unknown as Trajectory;
    },
    getScreenshot: async () => new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    getTree: async () => ({ xml: XML, tree: parseUiTree(XML) }),
    successfulEpisodes: async () => [],
    listPolicies: async () => [{ name: 'oracle', description: '' }, { name: 'manual', description: '' }],
  };
  return { api: api as unknown as WorkbenchApi, calls };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await act(async () => { await new Promise((r) => setTimeout(r, 0)); });
};
const q = (id: string) => document.querySelector(`[data-testid="${id}"]`) as HTMLElement;
const rows = () => [...document.querySelectorAll('[data-testid^="episode-row-"]')] as HTMLElement[];

describe('the Trajectories view in a DOM', () => {
  let root: Root;
  let store: AppStore;
  let calls: Array<{ m: string; a: any }>;

  beforeAll(async () => {
    const fake = fakeApi();
    calls = fake.calls;
    store = createAppStore(fake.api);
    setAppStore(store);
    store.getState().setView('trajectories');
    const host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root.render(createElement(TrajectoriesView)));
    await flush();
  });

  afterAll(() => act(() => root.unmount()));

  it('first paint: one page asked for, a spacer for 10,000 rows, a few dozen rows in the DOM', () => {
    expect(calls.filter((c) => c.m === 'listEpisodes')).toEqual([{ m: 'listEpisodes', a: { limit: 100, offset: 0 } }]);
    expect(q('episode-total').textContent).toMatch(/^10,000 episodes/);
    expect((document.querySelector('.traj-spacer') as HTMLElement).style.height).toBe(`${N * ROW_HEIGHT}px`);
    expect(rows().length).toBeGreaterThan(0);
    expect(rows().length).toBeLessThan(60);
    expect(rows()[0]!.dataset.testid).toBe(`episode-row-${N}`);
    // Only the episode with an overridden step is marked.
    expect(document.querySelectorAll('[data-testid^="episode-overridden-"]').length).toBe(1);
    expect(q(`episode-overridden-${N}`).title).toContain('1 of its actions');
    expect(q('status-count-failure').textContent).toContain('5,000');
    // A failed episode shows its first failed condition as the short reason; a successful one none.
    expect(q(`episode-reason-${N - 1}`).textContent).toBe(`contact Ann Lee has number ${N - 1}: expected ${N - 1}, found no contact named Ann Lee`);
    expect(q(`episode-reason-${N}`)).toBeNull();
  });

  it('scrolling deep fetches only the pages in view and renders rows there', async () => {
    const table = q('episode-table');
    await act(async () => {
      table.scrollTop = 7_000 * ROW_HEIGHT;
      table.dispatchEvent(new Event('scroll'));
    });
    await flush();
    const offsets = calls.filter((c) => c.m === 'listEpisodes').map((c) => c.a.offset);
    expect(offsets[0]).toBe(0);
    expect(offsets.slice(1).every((o: number) => o >= 6_900 && o <= 7_100)).toBe(true);
    expect(offsets.length).toBeLessThanOrEqual(3);
    const ids = rows().map((r) => Number(r.dataset.testid!.slice('episode-row-'.length)));
    expect(ids).toContain(N - 7_000);
    expect(rows().length).toBeLessThan(60);
  });

  it('a status facet refetches with the filter', async () => {
    await act(async () => q('status-count-failure').click());
    await flush();
    expect(calls.filter((c) => c.m === 'listEpisodes').at(-1)!.a).toEqual({ status: ['failure'], limit: 100, offset: 0 });
    expect(q('episode-total').textContent).toMatch(/^5,000 episodes/);
    expect(q('status-count-failure').getAttribute('aria-pressed')).toBe('true');
  });

  it('opens an episode from its row and steps through it with the keyboard', async () => {
    await act(async () => rows()[0]!.click());
    await flush();
    expect(calls.at(-1)).toEqual({ m: 'getTrajectory', a: N });
    expect(q('replay-view')).toBeTruthy();
    expect(q('replay-position').textContent).toBe('step 1 of 3');
    expect(q('replay-run').textContent).toBe('#1 nightly (suite)');
    expect(q('replay-prompt')).toBeNull();
    expect(document.querySelectorAll('[data-testid^="timeline-step-"]')).toHaveLength(4);
    expect(q('replay-action').textContent).toContain('Tap "Save" #0');
    expect(q('replay-thought').textContent).toContain('thinking 0');
    expect(q('replay-candidates').querySelectorAll('tbody tr')).toHaveLength(2);
    // The P column is the policy's own probability (not a softmax of it, which would read 72% and 28%).
    expect([...q('replay-candidates').querySelectorAll('tbody tr td:last-child')].map((td) => td.textContent?.trim())).toEqual(['97%', '3.0%']);
    expect(q('replay-screen').querySelector('img')).toBeTruthy();
    expect(q('replay-screen').querySelector('.screen-box.target')).toBeTruthy();
    expect(q('replay-tree-target').textContent).toContain('Save');
    // The Why panel: the failed condition first, each with ✓/✗, expected and found.
    expect(q('replay-why').querySelector('h3')!.textContent).toBe('Why: 1 of 2 conditions failed');
    expect([...q('why-condition-0').querySelectorAll('td')].map((td) => td.textContent)).toEqual(['✗', 'contact Ann Lee has number 2412043170', '2412043170', '2412043107']);
    expect([...q('why-condition-1').querySelectorAll('td')].map((td) => td.textContent)).toEqual(['✓', 'number of contacts', '4', '4']);

    await act(async () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })));
    await flush();
    expect(q('replay-position').textContent).toBe('step 2 of 3');
    // Recorded without a screenshot: the tree and the action still show, and the screen, before and after are drawn
    // from the tree (its two nodes' boxes and the button's text), not left black.
    expect(q('replay-screen').querySelector('img')).toBeNull();
    expect(q('replay-screen').textContent).toContain('No screenshot recorded: drawn from the accessibility tree');
    expect(q('replay-screen').querySelector('[data-testid="wireframe"]')!.getAttribute('data-nodes')).toBe('2');
    expect(q('replay-screen').querySelector('[data-testid="wireframe"] text')!.textContent).toBe('Save');
    expect(q('replay-before').querySelector('[data-testid="wireframe"]')).toBeTruthy();
    expect(q('replay-after').querySelector('[data-testid="wireframe"]')).toBeTruthy();
    expect(q('replay-tree-target')).toBeTruthy();
    // The agent's prompt and reply: collapsed, with their sizes; opened, the data URL by its size, never its 2 MB.
    const prompt = q('replay-prompt') as HTMLDetailsElement;
    expect(prompt.open).toBe(false);
    expect(q('replay-prompt-size').textContent).toBe('2.0 MB · 1 data URL (1.5 MB)');
    expect(q('replay-prompt-text')).toBeNull();
    await act(async () => {
      prompt.open = true;
      prompt.dispatchEvent(new Event('toggle'));
    });
    expect(q('replay-prompt-text').textContent).toContain('"url": "‹data:image/png · 1.5 MB›"');
    expect(q('replay-prompt-text').textContent!.length).toBeLessThan(500);
    expect(q('replay-reply-size').textContent).toBe('51 B');

    await act(async () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'End' })));
    await flush();
    expect(q('replay-position').textContent).toBe('end · 3 steps');
    expect(q('replay-rewards').textContent).toContain('outcome: 1');
    // Moving the timeline does not change how many steps Replay re-executes: N stays as shown until set on purpose.
    expect((q('replay-steps-input') as HTMLInputElement).value).toBe('0');
    expect(q('replay-on-device').textContent).toBe('Replay 0 steps on device');
    await act(async () => q('replay-steps-from-timeline').click());
    expect((q('replay-steps-input') as HTMLInputElement).value).toBe('3');
    expect(q('replay-on-device').textContent).toBe('Replay 3 steps on device');

    await act(async () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' })));
    await flush();
    expect(q('replay-view')).toBeNull();
    expect(store.getState().replay).toBeNull();
  });
});
