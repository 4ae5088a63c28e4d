/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { createRng } from '../../core/util/rng.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';

/**
 * Settings → Endpoints and the Agent view's policy picker in Chromium against `awb serve`, with a
 * local fake chat endpoint: a profile added with a key (a bad field refused first) is listed with
 * "key set", answers a test request, and runs as `vlm:<name>` with that key; a checkpoint registered
 * in <data folder>/policies runs as `checkpoint:<file>`.
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
});
