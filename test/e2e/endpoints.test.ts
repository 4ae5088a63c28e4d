/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { createRng } from '../../core/util/rng.js';
import { SELECTED, standInAgentFile } from '../helpers/androidworld-standin.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';

/**
 * Settings → Endpoints and the Agent view's policy picker in Chromium against `awb serve`, with a
 * local fake chat endpoint: a profile added with a key (a bad field refused first) is listed with
 * "key set", answers a test request, and runs as `vlm:<name>` with that key; a checkpoint registered
 * in <data folder>/policies runs as `checkpoint:<file>`; a profile made with a preset (AndroidWorld's T3A, its prompts
 * read from a stand-in t3a.py in the official file's shape) asks the endpoint as that agent asks, two calls a step.
 */
describe('endpoint profiles and registered checkpoints in the UI (fake chat endpoint)', () => {
  const KEY = 'sk-e2e-endpoints-SECRET-31337';
  let home: string;
  let fake: FakeChat;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'awb-e2e-endpoints-'));
    mkdirSync(join(home, 'policies'));
    saveCheckpoint(join(home, 'policies', 'tiny.json'), createModel(createRng('e2e-endpoints/policy')));
    fake = await startFakeChat((_req, res) => replyChat(res, 'Reason: open the clock first\nAction: {"action_type": "open_app", "app_name": "Clock"}'));
    serve = await startServe({ home });
    browser = await openWorkbench(serve);
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await fake?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('adds a profile with a key in Settings: a bad field is refused at the field, then it is listed with "key set"', async () => {
    await page.click('[data-view="settings"]');
    await page.getByTestId('endpoints-empty').waitFor({ timeout: 10_000 });
    await page.getByTestId('endpoint-add').click();
    await page.getByTestId('endpoint-field-name').fill('local');
    await page.getByTestId('endpoint-field-baseUrl').fill(`${fake.url}/v1`);
    await page.getByTestId('endpoint-field-model').fill('aw');
    await page.getByTestId('endpoint-field-apiKey').fill(KEY);
    await page.getByTestId('endpoint-field-temperature').fill('5');
    await page.getByTestId('endpoint-save').click();
    expect(await page.getByTestId('endpoint-error-temperature').innerText({ timeout: 10_000 })).toMatch(/got 5/);

    await page.getByTestId('endpoint-field-temperature').fill('0');
    await page.getByTestId('endpoint-save').click();
    const key = page.getByTestId('endpoint-key-local');
    await key.waitFor({ timeout: 10_000 });
    expect(await key.innerText()).toBe('key set');
    expect(await page.getByTestId('endpoint-form').count()).toBe(0);
    expect(await page.content()).not.toContain(KEY);
    expect(readFileSync(join(home, 'endpoints.json'), 'utf8')).not.toContain(KEY);

    // The edit form shows the key as set, write-only.
    await page.getByTestId('endpoint-edit-local').click();
    expect(await page.getByTestId('endpoint-field-apiKey').inputValue()).toBe('');
    expect(await page.getByTestId('endpoint-form').innerText()).toMatch(/API key \(set; write-only\)/);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('tests the profile: one request with the stored key, the answer shown', async () => {
    await page.getByTestId('endpoint-test-local').click();
    const result = page.getByTestId('endpoint-test-result-local');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.innerText()).toMatch(/Answered in \d+ ms \(1 attempt\)[\s\S]*open_app/);
    expect(fake.requests.at(-1)!.auth).toBe(`Bearer ${KEY}`);
  });

  it('picks the profile and the registered checkpoint in the Agent view\'s policy list and runs each', async () => {
    await page.click('[data-view="agent"]');
    const select = page.getByTestId('policy-select');
    await expect.poll(async () => select.locator('option').allInnerTexts(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['vlm:local', 'checkpoint:tiny.json']));
    const state = page.getByTestId('session-state');

    await select.selectOption('vlm:local');
    const before = fake.requests.length;
    await page.getByTestId('session-start').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
    expect(await page.getByTestId('proposal-thought').innerText()).toMatch(/open the clock first/);
    expect(fake.requests[before]!.auth).toBe(`Bearer ${KEY}`);
    await page.getByTestId('session-stop').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('finished');

    await select.selectOption('checkpoint:tiny.json');
    await page.getByTestId('session-start').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
    expect(await page.getByTestId('proposal-thought').innerText()).toMatch(/candidates, greedy/);
    await page.getByTestId('session-stop').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('finished');
  });

  it('a profile made with the androidworld-t3a preset asks as T3A asks: its prompt, then a summary call before the next step', async () => {
    const agentFile = join(home, 't3a.py');
    writeFileSync(agentFile, standInAgentFile('t3a'));
    await page.click('[data-view="settings"]');
    await page.getByTestId('endpoint-add').click();
    await page.getByTestId('endpoint-field-name').fill('aw-t3a');
    await page.getByTestId('endpoint-field-baseUrl').fill(`${fake.url}/v1`);
    await page.getByTestId('endpoint-field-preset').selectOption('androidworld-t3a');
    // The preset sets the fields shown (its model where none was typed) and asks for the file it reads.
    expect(await page.getByTestId('endpoint-field-model').inputValue()).toBe('gpt-4-turbo-2024-04-09');
    expect(await page.getByTestId('endpoint-field-maxTokens').inputValue()).toBe('1000');
    expect(await page.getByTestId('endpoint-field-historySteps').inputValue()).toBe('50');
    expect(await page.getByTestId('endpoint-preset-follows').innerText()).toMatch(/AndroidWorld's T3A/);
    await page.getByTestId('endpoint-save').click();
    expect(await page.getByTestId('endpoint-error-promptFile').innerText({ timeout: 10_000 })).toMatch(/give promptTemplate/);
    await page.getByTestId('endpoint-field-promptFile').fill(agentFile);
    await page.getByTestId('endpoint-field-model').fill('served-model');
    await page.getByTestId('endpoint-save').click();
    await page.getByTestId('endpoint-preset-aw-t3a').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('endpoint-aw-t3a').innerText()).toMatch(/androidworld-t3a · androidworld/);

    await page.click('[data-view="agent"]');
    const select = page.getByTestId('policy-select');
    await expect.poll(async () => select.locator('option').allInnerTexts(), { timeout: 10_000 }).toContain('vlm:aw-t3a');
    await select.selectOption('vlm:aw-t3a');
    const state = page.getByTestId('session-state');
    const before = fake.requests.length;
    await page.getByTestId('session-start').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
    const text = (k: number) => (fake.requests[k]!.body as { messages: Array<{ content: Array<{ text?: string }> }> }).messages[0]!.content[0]!.text!;
    // One user message, text only: the stand-in's prompt with the screen's elements as T3A writes them.
    const first = fake.requests[before]!.body as { model: string; max_tokens: number; messages: Array<{ role: string; content: unknown[] }> };
    expect(first).toMatchObject({ model: 'served-model', max_tokens: 1000, temperature: 0 });
    expect(first.messages.map((m) => [m.role, m.content.length])).toEqual([['user', 1]]);
    expect(text(before)).toMatch(/^Stand-in t3a prompt\.[\s\S]*History:\nStand-in: nothing done yet\.[\s\S]*UI element 0: UIElement\(text=/);

    // Step: the action is done, then the summary call about it, then the next action request with its line of history.
    await page.getByTestId('session-step').click();
    await expect.poll(() => fake.requests.length, { timeout: 15_000 }).toBe(before + 3);
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
    expect(text(before + 1)).toMatch(/Summary: $/);
    expect(text(before + 1)).toContain('Action: {"action_type": "open_app", "app_name": "Clock"}\nReason: open the clock first');
    const reply = 'Reason: open the clock first\nAction: {"action_type": "open_app", "app_name": "Clock"}';
    expect(text(before + 2)).toContain(`History:\nStep 1: ${SELECTED('{"action_type": "open_app", "app_name": "Clock"}', reply)}\n`);
    await page.getByTestId('session-stop').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('finished');
  }, 60_000);
});
