// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { SessionEvent, SessionInfo, UiNode } from '../../core/api/types.js';
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

function fakeApi() {
  const calls: Array<{ method: string; input: unknown }> = [];
  const listeners = new Set<(e: SessionEvent) => void>();
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
    getSession: async () => paused,
    describeTask: async () => ({ templateId: 'T', seed: 1, instruction: 'Do it', params: {}, subgoals: [] }),
    screenshot: async () => ({ png: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), width: 540, height: 1200 }),
    screenState: async () => ({ serial: 'sim', screen: { width: 1080, height: 2400, density: 420 }, tree, xml: '', foreground: { package: 'p', activity: 'a' } }),
    onSession: (_input: unknown, l: (e: SessionEvent) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    onActivity: () => () => {},
    overrideAction: record('overrideAction', paused),
    controlSession: record('controlSession', paused),
    setBreakpoints: record('setBreakpoints', paused),
  };
  return { api: api as unknown as WorkbenchApi, calls, emit: (e: SessionEvent) => listeners.forEach((l) => l(e)) };
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
});
