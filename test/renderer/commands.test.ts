// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { SessionInfo } from '../../core/api/types.js';
import { COMMANDS, commandForKey, handleKeyDown, runCommand, titleOf, type KeyLike } from '../../renderer/src/commands/index.js';
import { registered } from '../../renderer/src/commands/types.js';
import { createAppStore } from '../../renderer/src/store/index.js';

/** An API that records calls (the commands only need to reach the right slice action). */
function fakeApi() {
  const calls: Array<{ method: string; input: unknown }> = [];
  const api = new Proxy({}, {
    get: (_t, method: string) => (input: unknown) => {
      calls.push({ method, input });
      return method.startsWith('on') ? () => {} : Promise.resolve(undefined);
    },
  }) as WorkbenchApi;
  return { api, calls };
}

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k, code: /^\d$/.test(k) ? `Digit${k}` : k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods,
});

function session(state: SessionInfo['state']): SessionInfo {
  return {
    id: 's1', serial: 'simdroid-1', templateId: 'T', seed: 1, instruction: 'x', policy: 'oracle', state, breakpoints: [], proposal: null,
    steps: [], episodeId: null, result: null, hitBreakpoints: [], pendingOverride: null, agent: null,
  };
}

function outside(state: SessionInfo['state'], agent: Partial<NonNullable<SessionInfo['agent']>> = {}): SessionInfo {
  return { ...session(state), policy: 'my-agent', agent: { name: 'my-agent', run: { id: 3, name: 'r' }, episodes: 1, takenOver: false, connected: true, ...agent } };
}

describe('commands', () => {
  it('map debugger keys and Ctrl/Cmd+1..8 to their commands, and nothing else', () => {
    expect(commandForKey(key('F10'))?.name).toBe('session-step');
    expect(commandForKey(key('F8'))?.name).toBe('session-run');
    expect(commandForKey(key('F8', { shiftKey: true }))?.name).toBe('session-pause');
    expect(commandForKey(key('F5', { shiftKey: true }))?.name).toBe('session-stop');
    expect(commandForKey(key('F5', { shiftKey: true, ctrlKey: true }))?.name).toBe('session-reset');
    expect(['1', '2', '3', '4', '5', '6', '7', '8'].map((n) => commandForKey(key(n, { ctrlKey: true }))?.name))
      .toEqual(['go-devices', 'go-live', 'go-agent', 'go-trajectories', 'go-settings', 'go-training', 'go-adaptation', 'go-jobs']);
    expect(commandForKey(key('3', { metaKey: true }))?.name).toBe('go-agent');
    // A layout where the digit row gives other characters still matches by code.
    expect(commandForKey({ ...key('3', { ctrlKey: true }), key: '"' })?.name).toBe('go-agent');
    for (const k of [key('F5'), key('1'), key('9', { ctrlKey: true }), key('F10', { shiftKey: true }), key('F10', { ctrlKey: true }), key('1', { ctrlKey: true, altKey: true })]) {
      expect(commandForKey(k)).toBeNull();
    }
  });

  it('G then a letter shows a view (no browser takes it, where Ctrl+1…8 switch tabs); not while typing, nor after a pause', () => {
    const store = createAppStore(fakeApi().api);
    const seq = { g: null as number | null };
    const press = (k: string, t: number, target: EventTarget | null = null) => {
      const e = { key: k, code: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, timeStamp: t, target, preventDefault: () => {} };
      handleKeyDown(store, e as unknown as KeyboardEvent, seq);
    };
    expect(['d', 'l', 'a', 't', 'r', 'p', 'j', 's'].map((k) => COMMANDS[`go-${['devices', 'live', 'agent', 'trajectories', 'training', 'adaptation', 'jobs', 'settings'][['d', 'l', 'a', 't', 'r', 'p', 'j', 's'].indexOf(k)]}` as keyof typeof COMMANDS].sequence)).toEqual(['d', 'l', 'a', 't', 'r', 'p', 'j', 's']);
    press('g', 1000);
    press('r', 1200);
    expect(store.getState().view).toBe('training');
    press('g', 2000);
    press('t', 4000); // too late
    expect(store.getState().view).toBe('training');
    press('t', 4100); // a lone key does nothing
    expect(store.getState().view).toBe('training');
    const field = document.createElement('input');
    press('g', 5000, field);
    press('d', 5100, field); // typing "gd" in a field
    expect(store.getState().view).toBe('training');
  });

  it('are all registered once, under the name the closed union gives them, with shortcuts in their titles', () => {
    expect(registered().map((c) => c.name).sort()).toEqual(Object.keys(COMMANDS).sort());
    for (const [name, c] of Object.entries(COMMANDS)) expect(c.name).toBe(name);
    expect(titleOf('session-step')).toBe('Step (F10)');
    expect(titleOf('session-pause')).toBe('Pause (Shift+F8)');
    expect(titleOf('go-agent')).toMatch(/^Agent \(G A · (Ctrl\+|⌘)3\)$/);
  });

  it('step and run only while a session is paused in the Agent view; pause only while running; stop until finished', () => {
    const store = createAppStore(fakeApi().api);
    const can = (n: keyof typeof COMMANDS) => COMMANDS[n].predicate?.(store.getState()) ?? true;
    store.setState({ view: 'agent', session: null });
    expect(['session-step', 'session-run', 'session-pause', 'session-stop', 'session-reset'].map((n) => can(n as keyof typeof COMMANDS))).toEqual([false, false, false, false, false]);
    store.setState({ session: session('running') });
    expect([can('session-step'), can('session-run'), can('session-pause'), can('session-stop')]).toEqual([false, false, true, true]);
    store.setState({ session: session('paused') });
    expect([can('session-step'), can('session-run'), can('session-pause'), can('session-stop'), can('session-reset')]).toEqual([true, true, false, true, true]);
    store.setState({ sessionBusy: true });
    expect(can('session-step')).toBe(false);
    store.setState({ sessionBusy: false, session: session('finished') });
    expect([can('session-step'), can('session-stop'), can('session-reset')]).toEqual([false, false, true]);
    // The manual policy is stepped by the person: Run is off, with its reason; Step stays.
    store.setState({ session: { ...session('paused'), policy: 'manual' } });
    expect([can('session-step'), can('session-run')]).toEqual([true, false]);
    expect(COMMANDS['session-run'].reason?.(store.getState())).toBe('The manual policy is stepped by you: choose an action, then Step');
    expect(COMMANDS['session-run'].reason?.({ ...store.getState(), session: session('paused') })).toBeNull();
    store.setState({ session: session('paused'), view: 'live' });
    expect(can('session-step')).toBe(false);
    expect(can('go-live')).toBe(false);
    expect(can('go-agent')).toBe(true);
  });

  it('for an outside agent\'s session: take over until taken, hand back while taken; no Reset; pause and run between steps and episodes', () => {
    const store = createAppStore(fakeApi().api);
    const can = (...names: Array<keyof typeof COMMANDS>) => names.map((n) => COMMANDS[n].predicate?.(store.getState()) ?? true);
    store.setState({ view: 'agent', session: outside('running') });
    expect(can('session-takeover', 'session-handback', 'session-reset', 'session-pause', 'session-run', 'session-step')).toEqual([true, false, false, true, true, false]);
    store.setState({ session: outside('paused') });
    expect(can('session-step', 'session-run', 'session-pause', 'session-stop')).toEqual([true, true, false, true]);
    // Between episodes: a pause holds the next one; commands still reach the session.
    store.setState({ session: outside('finished') });
    expect(can('session-pause', 'session-run', 'session-takeover', 'session-stop')).toEqual([true, true, true, false]);
    // Taken over: the person steps; Run is off with its reason; Hand back returns it.
    store.setState({ session: outside('paused', { takenOver: true }) });
    expect(can('session-takeover', 'session-handback', 'session-step', 'session-run')).toEqual([false, true, true, false]);
    expect(COMMANDS['session-run'].reason?.(store.getState())).toMatch(/Hand back/);
    // Handed back, held at the person's placeholder until the agent's next action replaces it: nothing to step or run.
    store.setState({ session: { ...outside('paused'), proposal: { index: 2, action: { action_type: 'wait' }, description: null, target: null, thought: null, candidates: [], error: null, foreground: { package: 'p', activity: 'a' }, handover: 'A person took over' } } });
    expect(can('session-step', 'session-run', 'session-takeover', 'session-stop')).toEqual([false, false, true, true]);
    expect(COMMANDS['session-step'].reason?.(store.getState())).toMatch(/agent's next action/);
    // The agent left: nothing more to do.
    store.setState({ session: outside('finished', { connected: false }) });
    expect(can('session-takeover', 'session-handback', 'session-step', 'session-run', 'session-pause', 'session-stop', 'session-reset')).toEqual([false, false, false, false, false, false, false]);
  });

  it('perform one slice action each, and the key handler runs only what its predicate allows', async () => {
    const { api, calls } = fakeApi();
    const store = createAppStore(api);
    store.setState({ view: 'agent', session: session('paused'), sessionId: 's1' });
    expect(runCommand('session-step', store)).toBe(true);
    expect(store.getState().sessionBusy).toBe(true);
    expect(runCommand('session-step', store)).toBe(false); // one command at a time
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().sessionBusy).toBe(false);
    expect(calls.filter((c) => c.method === 'controlSession')).toEqual([{ method: 'controlSession', input: { sessionId: 's1', command: 'step' } }]);

    let prevented = 0;
    const press = (k: KeyLike) => handleKeyDown(store, { ...k, preventDefault: () => prevented++ } as unknown as KeyboardEvent);
    press(key('F8'));
    await new Promise((r) => setTimeout(r, 0));
    expect(calls.at(-1)).toEqual({ method: 'controlSession', input: { sessionId: 's1', command: 'run' } });
    const before = calls.length;
    press(key('F8', { shiftKey: true })); // pause: not while paused, but the key is still kept from the browser
    expect(calls.length).toBe(before);
    expect(prevented).toBe(2);
    press(key('4', { ctrlKey: true }));
    expect(store.getState().view).toBe('trajectories');
    press(key('a'));
    expect(prevented).toBe(3);
  });
});
