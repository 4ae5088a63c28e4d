import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { errorsByField, keyStatus, newDraft, saveInputOf } from '../../renderer/src/views/settings/endpoint-form.js';
import { groupPolicies, sessionStartOf } from '../../renderer/src/views/agent/session-start.js';

describe('the endpoint form and the endpoints slice against the real workbench (over the bridge)', () => {
  const KEY = 'sk-renderer-endpoints-SECRET-5';
  let bridged: BridgedWorkbench;
  let dir: string;
  let store: AppStore;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-endpoints-slice-');
    ({ dir, store } = bridged);
  });
  afterAll(() => bridged.close());

  it('saveInputOf converts numbers where they parse, keeps stored fields the form does not show, and sends the key change', () => {
    const d = { ...newDraft(), name: ' p ', model: 'm', temperature: '0.3', maxTokens: 'lots', coordinates: 'screen' as const };
    expect(saveInputOf(d)).toEqual({
      name: 'p',
      settings: {
        endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', server: 'vllm', timeoutMs: 60000, maxConcurrency: 4 },
        format: 'androidworld', temperature: 0.3, maxTokens: 'lots', historySteps: 4, coordinates: 'screen',
      },
    });
    const base = { endpoint: { baseUrl: 'u', model: 'm', timeoutMs: 1, retries: 7, backoffMs: 1, maxBackoffMs: 1, maxConcurrency: 1 }, extraBody: { top_p: 0.9 } };
    const edited = saveInputOf({ ...d, base: base as never, keyChange: 'clear' });
    expect(edited.apiKey).toBeNull();
    expect(edited.settings).toMatchObject({ extraBody: { top_p: 0.9 }, endpoint: { retries: 7 } });
    expect(saveInputOf({ ...d, keyChange: 'set', apiKey: 'k1' }).apiKey).toBe('k1');
    expect('apiKey' in saveInputOf(d)).toBe(false);
  });

  it('errorsByField puts the server\'s paths at the form\'s fields (both the settings\' own and the input\'s)', () => {
    expect(errorsByField({ 'endpoint.baseUrl': 'bad url', 'settings.temperature': 'too hot', apiKey: 'no', extraBody: 'odd' }))
      .toEqual({ baseUrl: 'bad url', temperature: 'too hot', apiKey: 'no', '': 'extraBody: odd' });
    expect([keyStatus({ hasKey: true, apiKeyEnv: null }), keyStatus({ hasKey: false, apiKeyEnv: 'K' }), keyStatus({ hasKey: false, apiKeyEnv: null })])
      .toEqual(['key set', 'key from $K', 'no key']);
  });

  it('adds a profile with a key, shows it as set, refuses a bad field by field, and refreshes the Agent view\'s policies', async () => {
    const st = () => store.getState();
    await st().loadEndpoints();
    expect(st().endpoints).toEqual([]);
    st().editEndpoint(null);
    st().setEndpointDraft({ name: 'lab', model: 'qwen', apiKey: KEY, keyChange: 'set', maxTokens: '0' });
    expect(await st().saveEndpointDraft()).toBe(false);
    expect(errorsByField(st().endpointErrors).maxTokens).toMatch(/got 0/);
    expect(st().endpointDraft).not.toBeNull();
    st().setEndpointDraft({ maxTokens: '256' });
    expect(st().endpointErrors).toEqual({});
    expect(await st().saveEndpointDraft()).toBe(true);
    expect(st().endpointDraft).toBeNull();
    expect(st().endpoints).toEqual([expect.objectContaining({ name: 'lab', hasKey: true })]);
    expect(JSON.stringify(st().endpoints)).not.toContain(KEY);
    expect(st().agentPolicies.map((p) => p.name)).toContain('vlm:lab');
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({ lab: KEY });

    // Edit: the draft starts without a key and keeps the stored one unless told.
    st().editEndpoint('lab');
    expect(st().endpointDraft).toMatchObject({ original: 'lab', apiKey: '', keyChange: 'keep', hasKey: true, maxTokens: '256' });
    expect(await st().saveEndpointDraft()).toBe(true);
    expect(st().endpoints[0]!.hasKey).toBe(true);

    await st().removeEndpoint('lab');
    expect(st().endpoints).toEqual([]);
    expect(st().agentPolicies.map((p) => p.name)).not.toContain('vlm:lab');
  });

  it('the Agent view groups policies and Reset keeps a checkpoint: policy', () => {
    const groups = groupPolicies([{ name: 'checkpoint:a.json' }, { name: 'oracle' }, { name: 'vlm:x' }, { name: 'manual' }, { name: 'checkpoint:grpo-1' }, { name: 'adapter:grpo-1/clock' }]);
    expect(groups.map((g) => [g.group, g.policies.map((p) => p.name)])).toEqual([
      ['builtin', ['oracle', 'manual']], ['vlm', ['vlm:x']], ['checkpoint', ['checkpoint:grpo-1']], ['adapter', ['adapter:grpo-1/clock']], ['registered', ['checkpoint:a.json']],
    ]);
    const info = { templateId: 'SystemWifiTurnOn', seed: 2, instruction: 'Turn wifi on', policy: 'checkpoint:a.json' } as never;
    expect(sessionStartOf(null, 's', [], info)).toMatchObject({ policy: 'checkpoint:a.json', templateId: 'SystemWifiTurnOn', seed: 2 });
  });
});

describe('a preset chosen in the endpoint form (as awb endpoints add --preset), against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;
  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-endpoints-preset-');
    ({ store } = bridged);
  });
  afterAll(() => bridged.close());

  it('sets the shown fields, asks for the file the preset reads, saves the preset\'s settings and switches cleanly to another', async () => {
    const st = () => store.getState();
    await st().loadEndpoints();
    expect(st().vlmPresets.map((p) => p.id)).toEqual(expect.arrayContaining(['ui-tars-1.5-7b', 'androidworld-t3a', 'androidworld-m3a']));
    st().editEndpoint(null);
    st().setEndpointDraft({ name: 'aw', baseUrl: 'http://127.0.0.1:9/v1' });
    st().chooseEndpointPreset('androidworld-m3a');
    expect(st().endpointDraft).toMatchObject({
      preset: 'androidworld-m3a', model: 'gpt-4-turbo-2024-04-09', format: 'androidworld', temperature: '0', maxTokens: '1000', historySteps: '50', promptFile: '',
    });
    // Its prompts are in AndroidWorld's m3a.py: refused without it, at the form's field.
    expect(await st().saveEndpointDraft()).toBe(false);
    expect(errorsByField(st().endpointErrors).promptFile).toMatch(/give promptTemplate/);
    st().setEndpointDraft({ promptFile: '/opt/android_world', model: 'my-served-model' });
    expect(await st().saveEndpointDraft()).toBe(true);
    expect(st().endpoints[0]!.settings).toMatchObject({
      preset: 'androidworld-m3a', agent: 'androidworld-m3a', format: 'androidworld', screenshot: true, maxTokens: 1000,
      promptTemplate: { file: '/opt/android_world' }, endpoint: { model: 'my-served-model' },
    });
    expect(st().agentPolicies.map((p) => p.name)).toContain('vlm:aw');

    // Switching preset drops what the old one filled: UI-TARS-1.5's own agent, its package prompt, its model (the
    // typed model stays), and the file field empties (UI-TARS-1.5 reads none).
    st().editEndpoint('aw');
    expect(st().endpointDraft).toMatchObject({ preset: 'androidworld-m3a', promptFile: '/opt/android_world' });
    st().chooseEndpointPreset('ui-tars-1.5-7b');
    expect(st().endpointDraft).toMatchObject({ format: 'ui-tars', coordinates: 'smart-resize', promptFile: '', model: 'my-served-model' });
    expect(await st().saveEndpointDraft()).toBe(true);
    const s = st().endpoints[0]!.settings;
    expect(s).toMatchObject({
      preset: 'ui-tars-1.5-7b', agent: 'ui-tars-1.5', format: 'ui-tars', promptTemplate: { package: 'ui-tars', name: 'MOBILE_USE_DOUBAO' }, historyImages: 4,
    });
    expect(s.screenshot).toBe(true);

    // No preset again: the workbench's own request in the format, nothing of UI-TARS-1.5's agent kept.
    st().editEndpoint('aw');
    st().chooseEndpointPreset('');
    expect(await st().saveEndpointDraft()).toBe(true);
    expect(st().endpoints[0]!.settings).toMatchObject({ agent: 'workbench', format: 'ui-tars' });
    expect(st().endpoints[0]!.settings.preset).toBeUndefined();
    expect(st().endpoints[0]!.settings.promptTemplate).toBeUndefined();
  }, 60_000);
});
