// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { FrameView, SessionEvent, SessionInfo, UiNode } from '../../core/api/types.js';
import { installKeys } from '../../renderer/src/commands/index.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { AgentView } from '../../renderer/src/views/agent/AgentView.js';

// React's act() needs this flag outside a test renderer.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function node(cls: string, b: [number, number, number, number], extra: Partial<UiNode> = {}, children: UiNode[] = []): UiNode {
  return {
    index: 0, text: '', resourceId: '', className: cls, packageName: 'p', contentDesc: '', checkable: false, checked: false, clickable: false,
    enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false, selected: false,
    bounds: { left: b[0], top: b[1], right: b[2], bottom: b[3] }, naf: false, children, ...extra,
  };
}

const SAVE = { left: 0, top: 0, right: 540, bottom: 600 };
/** A session held at step 2 of a policy that gives a thought and two candidates. */
const paused: SessionInfo = {
  id: 's1', serial: 'sim', templateId: 'T', seed: 1, instruction: 'Do it', policy: 'oracle', state: 'paused',
  breakpoints: [{ id: 'bp1', enabled: true, spec: { kind: 'action_type', actionType: 'click' } }],
  proposal: {
    index: 1, action: { action_type: 'click', index: 1 }, description: 'Tap "Save"', target: { bounds: SAVE, label: 'Save' }, thought: 'Save it now',
    candidates: [
      { action: { action_type: 'click', index: 1 }, score: 2, probability: 0.88, description: 'Tap "Save"', target: { bounds: SAVE, label: 'Save' } },
      { action: { action_type: 'navigate_back' }, score: 0, probability: 0.12, description: 'Go back', target: null },
    ],
    error: null, foreground: { package: 'p', activity: 'a' }, handover: null,
  },
  steps: [{ index: 0, action: { action_type: 'open_app', app_name: 'X' }, description: 'Open X', thought: null, target: null, overridden: true, error: null, foreground: { package: 'p', activity: 'a' }, rewards: {} }],
  episodeId: 7, result: null, hitBreakpoints: ['bp1'], pendingOverride: null, agent: null,
};

/** An outside agent's session (a Python program on the environment server), running its first episode. */
const agentRunning: SessionInfo = {
  ...paused, id: 'o1', serial: 'sim2', policy: 'my-agent', state: 'running', breakpoints: [], proposal: null, steps: [], episodeId: 9, hitBreakpoints: [],
  agent: { name: 'my-agent', run: { id: 4, name: 'my run' }, episodes: 1, takenOver: false, connected: true },
};

function fakeApi() {
  const calls: Array<{ method: string; input: unknown }> = [];
  const listeners = new Set<(e: SessionEvent) => void>();
  const listWatchers = new Set<(list: SessionInfo[]) => void>();
  const frameWatchers = new Set<(f: FrameView) => void>();
  const tree = { rotation: 0, roots: [node('android.widget.FrameLayout', [0, 0, 1080, 2400], {}, [node('android.widget.Button', [0, 0, 540, 600], { text: 'Save', clickable: true }, [node('android.widget.TextView', [10, 10, 300, 100], { text: 'Save' })])])] };
  const record = (method: string, result: unknown = undefined) => async (input: unknown) => {
    calls.push({ method, input });
    return result;
  };
  const api = {
    listTasks: async () => [{ id: 'T', app: 'X', apps: ['X'], difficulty: 'easy', template: 'Do it', informationRetrieval: false }],
    listPolicies: async () => [{ name: 'oracle', description: '' }, { name: 'random', description: '' }, { name: 'manual', description: '' }],
    listDevices: async () => ({ devices: [{ serial: 'sim', kind: 'simdroid', transport: 'embedded', state: 'device', online: true, screen: { width: 1080, height: 2400, density: 420 }, adbAddress: null, sessionId: 's1' }], adbError: null }),
    listSessions: async () => [paused],
    getSession: async ({ sessionId }: { sessionId: string }) => (sessionId === agentRunning.id ? agentRunning : paused),
    describeTask: async () => ({ templateId: 'T', seed: 1, instruction: 'Do it', params: {}, subgoals: [] }),
    screenshot: async () => ({ png: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), width: 540, height: 1200 }),
    screenState: async () => ({ serial: 'sim', screen: { width: 1080, height: 2400, density: 420 }, tree, xml: '', foreground: { package: 'p', activity: 'a' } }),
    onSession: (_input: unknown, l: (e: SessionEvent) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    onActivity: () => () => {},
    onSessions: (_input: unknown, l: (list: SessionInfo[]) => void) => {
      listWatchers.add(l);
      return () => listWatchers.delete(l);
    },
    onFrame: (input: unknown, l: (f: FrameView) => void) => {
      calls.push({ method: 'onFrame', input });
      frameWatchers.add(l);
      return () => frameWatchers.delete(l);
    },
    overrideAction: record('overrideAction', paused),
    controlSession: record('controlSession', paused),
    setBreakpoints: record('setBreakpoints', paused),
  };
  return {
    api: api as unknown as WorkbenchApi, calls,
    emit: (e: SessionEvent) => listeners.forEach((l) => l(e)),
    emitList: (list: SessionInfo[]) => listWatchers.forEach((l) => l(list)),
    emitFrame: (f: FrameView) => frameWatchers.forEach((l) => l(f)),
  };
}

describe('the Agent view', () => {
  let root: Root;
  let host: HTMLDivElement;
  let store: AppStore;
  let fake: ReturnType<typeof fakeApi>;
  let offKeys: () => void;
  const q = (id: string) => host.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const settle = () => act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });

  beforeAll(async () => {
    fake = fakeApi();
    store = createAppStore(fake.api);
    setAppStore(store);
    store.setState({ view: 'agent' });
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    offKeys = installKeys(store);
    await act(async () => root.render(createElement(AgentView)));
    await settle();
  });
  afterAll(() => {
    offKeys();
    act(() => root.unmount());
  });

  it('picks up the running session and shows its proposal, candidates, hit breakpoint and steps', () => {
    expect(store.getState().sessionId).toBe('s1');
    expect(q('session-state')?.textContent).toContain('Paused at step 2');
    expect(q('proposal-thought')?.textContent).toBe('Save it now');
    expect(q('proposal-action')?.textContent).toContain('Tap "Save"');
    expect(q('candidate-0')?.textContent).toContain('88%');
    expect(q('candidate-1')?.textContent).toContain('Go back');
    expect(q('breakpoint-hit')?.textContent).toContain('Action: click');
    expect(q('breakpoint-bp1')?.className).toContain('hit');
    expect(q('step-row-0')?.textContent).toContain('overridden');
    expect((q('session-step') as HTMLButtonElement).disabled).toBe(false);
    expect((q('session-pause') as HTMLButtonElement).disabled).toBe(true);
    expect(q('session-step')?.title).toBe('Step (F10)');
    // The target box and the candidate's box, drawn over the screen.
    const boxes = [...host.querySelectorAll('[data-testid="agent-screen"] .screen-box')].map((b) => b.className);
    expect(boxes).toEqual(expect.arrayContaining(['screen-box target', 'screen-box candidate']));
  });

  it('overrides with a clicked candidate, and with the element clicked on the screen (its document-order index)', async () => {
    await act(async () => q('candidate-1')!.click());
    expect(fake.calls.at(-1)).toEqual({ method: 'overrideAction', input: { sessionId: 's1', action: { action_type: 'navigate_back' } } });
    const screen = q('agent-screen')!;
    screen.getBoundingClientRect = () => ({ left: 0, top: 0, width: 270, height: 600, right: 270, bottom: 600, x: 0, y: 0, toJSON: () => ({}) });
    // (20, 20) CSS px is (80, 80) device px: inside the TextView, whose clickable parent is the Button (ordinal 1).
    await act(async () => screen.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, clientX: 20, clientY: 20 })));
    await settle();
    expect(fake.calls.at(-1)).toEqual({ method: 'overrideAction', input: { sessionId: 's1', action: { action_type: 'click', index: 1 } } });
  });

  it('shows a pending override and a malformed one\'s error from the server', async () => {
    act(() => fake.emit({ kind: 'state', session: { ...paused, pendingOverride: { action: { action_type: 'navigate_back' }, description: 'Go back', target: null } } }));
    expect(q('override-pending')?.textContent).toContain('Go back');
    fake.api.overrideAction = async () => {
      throw Object.assign(new Error('Malformed action {"x":1}: action_type: required'), { name: 'ActionParseError' });
    };
    const box = q('override-json') as HTMLTextAreaElement;
    await act(async () => store.getState().setOverrideText('{"x":1}'));
    expect(box.value).toBe('{"x":1}');
    await act(async () => q('override-apply')!.click());
    expect(q('override-error')?.textContent).toMatch(/ActionParseError: Malformed action/);
  });

  it('steps with F10 and shows the result with a link to the episode', async () => {
    await act(async () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'F10' })));
    await settle();
    expect(fake.calls.filter((c) => c.method === 'controlSession').at(-1)?.input).toEqual({ sessionId: 's1', command: 'step' });
    act(() => fake.emit({
      kind: 'finished',
      session: { ...paused, state: 'finished', proposal: null, hitBreakpoints: [], result: { status: 'success', success: true, terminatedBy: 'status', error: null, answer: null } },
    }));
    await settle();
    expect(q('session-result')?.textContent).toContain('Success');
    expect((q('session-step') as HTMLButtonElement).disabled).toBe(true);
    await act(async () => q('session-open-episode')!.click());
    expect(store.getState().view).toBe('trajectories');
  });

  it('lists outside agents live, attaches to one and says what is happening; while taken over a click is done at once', async () => {
    act(() => store.setState({ view: 'agent' }));
    act(() => fake.emitList([paused, agentRunning]));
    expect(q('outside-row-s1')).toBeNull();
    expect(q('outside-row-o1')?.textContent).toMatch(/my-agent.*#4 my run.*T #1.*sim2.*running/);
    await act(async () => q('outside-attach-o1')!.click());
    await settle();
    expect(store.getState().sessionId).toBe('o1');
    expect(q('outside-status')?.dataset.phase).toBe('running');
    expect(q('session-reset')).toBeNull();
    // The device mirrored live while the agent runs.
    expect(fake.calls.filter((c) => c.method === 'onFrame').at(-1)?.input).toMatchObject({ serial: 'sim2' });
    act(() => fake.emitFrame({ serial: 'sim2', png: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), width: 540, height: 1200, path: 'push', seq: 1, at: 1, changedAt: null }));
    expect(host.querySelector('[data-testid="agent-screen"] img')).not.toBeNull();
    expect(q('agent-screen')?.textContent).toContain('Live');

    const held: SessionInfo = { ...agentRunning, state: 'paused', proposal: { ...paused.proposal!, index: 0, candidates: [] } };
    act(() => fake.emit({ kind: 'state', session: held }));
    await settle();
    expect(q('outside-status')?.textContent).toMatch(/the agent's step is waiting for you/);
    await act(async () => q('session-takeover')!.click());
    expect(fake.calls.filter((c) => c.method === 'controlSession').at(-1)?.input).toEqual({ sessionId: 'o1', command: 'takeover' });

    act(() => fake.emit({ kind: 'state', session: { ...held, agent: { ...held.agent!, takenOver: true } } }));
    await settle();
    expect(q('outside-status')?.dataset.phase).toBe('your-turn');
    expect(q('session-handback')).not.toBeNull();
    const screen = q('agent-screen')!;
    screen.getBoundingClientRect = () => ({ left: 0, top: 0, width: 270, height: 600, right: 270, bottom: 600, x: 0, y: 0, toJSON: () => ({}) });
    // (An earlier test made the server refuse overrides.)
    fake.api.overrideAction = async (input) => {
      fake.calls.push({ method: 'overrideAction', input });
      return held;
    };
    const before = fake.calls.length;
    await act(async () => screen.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, clientX: 20, clientY: 20 })));
    await settle();
    expect(fake.calls.slice(before).filter((c) => c.method !== 'screenState')).toEqual([
      { method: 'overrideAction', input: { sessionId: 'o1', action: { action_type: 'click', index: 1 } } },
      { method: 'controlSession', input: { sessionId: 'o1', command: 'step' } },
    ]);

    // The agent's next episode: the steps start over.
    act(() => fake.emit({ kind: 'episode', session: { ...agentRunning, agent: { ...agentRunning.agent!, episodes: 2 } } }));
    expect(host.querySelector('.agent-log h3')?.textContent).toContain('Steps of episode 2');
    expect(host.querySelectorAll('[data-testid^="step-row-"]')).toHaveLength(0);

    // The agent left: its session leaves the list, but stays here, said to be disconnected, until detached.
    const gone: SessionInfo = { ...agentRunning, state: 'finished', agent: { ...agentRunning.agent!, episodes: 2, connected: false } };
    act(() => fake.emit({ kind: 'finished', session: gone }));
    act(() => fake.emitList([]));
    expect(q('outside-status')?.dataset.phase).toBe('disconnected');
    expect(q('outside-state-o1')?.textContent).toBe('disconnected');
    expect((q('session-step') as HTMLButtonElement).disabled).toBe(true);
    await act(async () => q('outside-detach')!.click());
    expect(store.getState().session).toBeNull();
    expect(q('outside-agents')?.textContent).toMatch(/No outside agent connected/);
  });
});
