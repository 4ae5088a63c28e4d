/// <reference lib="dom" />
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';
import { imageColours } from './pixels.js';

/**
 * Watch and break an outside agent (issue 30), in Chromium against `awb serve`, with a Python agent on the other side
 * (test/e2e/outside_agent.py, the project's .venv python and its `websockets`): the agent's session is listed in the
 * Agent view, attached and mirrored; paused, its step waits; single-stepped; one action overridden (the agent is
 * told); taken over, the person acts on the screen, and on hand back the agent's step returns with the person's steps;
 * the agent closes its session, the view says so, and the recorded episode's replay shows a step's prompt and reply.
 */
const PYTHON = fileURLToPath(new URL('../../.venv/bin/python', import.meta.url));
const AGENT = fileURLToPath(new URL('./outside_agent.py', import.meta.url));

type Line = Record<string, any>;

/** The Python agent: commands on its stdin, one JSON line per result or server event on its stdout. */
class PythonAgent {
  readonly lines: Line[] = [];
  private stderr = '';
  exitCode: number | null = null;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (l) => this.lines.push(JSON.parse(l) as Line));
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    child.once('exit', (code) => (this.exitCode = code ?? -1));
  }

  static start(envUrl: string): PythonAgent {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: the project's Python environment (./scripts/setup) runs the outside agent`);
    return new PythonAgent(spawn(PYTHON, [AGENT, envUrl], { stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  send(command: 'reset' | 'step' | 'close'): void {
    this.child.stdin.write(`${command}\n`);
  }

  /** The first line (from `after` on) that `match` accepts; fails with what the agent said if none comes in time. */
  async line(what: string, match: (l: Line) => boolean, after = 0, ms = 20_000): Promise<Line> {
    const end = Date.now() + ms;
    for (;;) {
      const found = this.lines.slice(after).find(match);
      if (found) return found;
      if (this.exitCode !== null || Date.now() > end) {
        throw new Error(`the agent did not say ${what} (exit ${this.exitCode}); it said ${JSON.stringify(this.lines)}; stderr: ${this.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The result of the agent's step n. */
  step(n: number): Promise<Line> {
    return this.line(`the result of step ${n}`, (l) => l.step === n);
  }

  has(match: (l: Line) => boolean): boolean {
    return this.lines.some(match);
  }

  kill(): void {
    if (this.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('an outside Python agent watched and broken in the Agent view', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let agent: PythonAgent;
  let session: string;

  const testId = (id: string) => page.getByTestId(id);
  const phase = () => testId('outside-status').getAttribute('data-phase');
  const stepRows = () => page.locator('[data-testid^="step-row-"]').count();
  /** Nothing is wider than the window (the layout fits 1280×800). */
  const noHorizontalOverflow = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  beforeAll(async () => {
    // No embedded device: the agent's session starts its own SimDroid.
    serve = await startServe({ args: ['--no-device'] });
    browser = await openWorkbench(serve);
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click('[data-view="agent"]');
    await testId('outside-agents').waitFor();
    agent = PythonAgent.start(serve.envUrl);
  });

  afterAll(async () => {
    agent?.kill();
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  it('lists the agent\'s session live, attaches to it and mirrors its device', async () => {
    session = (await agent.line('its session', (l) => !!l.created)).created.session;
    agent.send('reset');
    await agent.line('its first observation', (l) => !!l.reset);
    const row = testId(`outside-row-${session}`);
    await row.waitFor();
    await expect.poll(() => testId(`outside-state-${session}`).innerText()).toBe('running');
    expect(await row.innerText()).toMatch(/e2e-agent[\s\S]*e2e outside run[\s\S]*ClockStopwatchRun #2[\s\S]*1/);

    await testId(`outside-attach-${session}`).click();
    await expect.poll(phase).toBe('running');
    await testId('outside-detach').waitFor();
    agent.send('step');
    expect((await agent.step(1)).info).toMatchObject({ overridden: false, person_steps: 0 });
    await testId('step-row-0').waitFor();
    // The device, live (a painted frame of the mirror).
    const live = page.locator('[data-testid="agent-screen"] canvas[data-frame]');
    await live.waitFor();
    expect(await imageColours(live)).toBeGreaterThan(8);
  });

  it('pause holds the agent\'s next step until Step carries it out', async () => {
    await testId('session-pause').click();
    const from = agent.lines.length;
    agent.send('step');
    await agent.line('that its step is held', (l) => l.event === 'held', from);
    await expect.poll(phase).toBe('waiting');
    expect(await testId('outside-status').innerText()).toMatch(/the agent's step is waiting for you/);
    await expect.poll(() => testId('proposal-action').innerText()).toMatch(/wait/);
    expect(agent.has((l) => l.step === 2)).toBe(false);
    await testId('session-step').click();
    expect((await agent.step(2)).info).toMatchObject({ overridden: false, action: { action_type: 'wait' } });
    await testId('step-row-1').waitFor();
  });

  it('overrides one action: the agent is told its step was replaced', async () => {
    const from = agent.lines.length;
    agent.send('step');
    await agent.line('that its step is held', (l) => l.event === 'held', from);
    await expect.poll(() => testId('session-state').getAttribute('data-state')).toBe('paused');
    await testId('quick-home').click();
    await testId('override-pending').waitFor();
    await testId('session-step').click();
    expect((await agent.step(3)).info).toMatchObject({ overridden: true, person_steps: 0, action: { action_type: 'navigate_home' } });
    await testId('step-row-2').waitFor();
    expect(await testId('step-row-2').getAttribute('data-overridden')).not.toBeNull();
  });

  it('takes over: the person\'s clicks are carried out at once, and hand back returns the agent\'s step with them', async () => {
    await testId('session-takeover').click();
    await expect.poll(phase).toBe('taken-over');
    const from = agent.lines.length;
    agent.send('step');
    await agent.line('that its step is held', (l) => l.event === 'held', from);
    await expect.poll(phase).toBe('your-turn');
    // A click on the held screen is the person's action, carried out without a Step.
    const held = page.locator('[data-testid="agent-screen"] img');
    await held.waitFor();
    const box = (await testId('agent-screen').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.55);
    await testId('step-row-3').waitFor();
    await testId('proposal-handover').waitFor();
    await testId('quick-back').click();
    await testId('step-row-4').waitFor();
    expect(await stepRows()).toBe(5);
    expect(agent.has((l) => l.step === 4)).toBe(false);

    await testId('session-handback').click();
    const back = (await agent.step(4)).info;
    expect(back).toMatchObject({ overridden: true, person_steps: 1 });
    expect(['click', 'long_press']).toContain(back.action.action_type);
    // Still paused (the person's pause from before the takeover): the agent's next step waits; Run lets it go.
    agent.send('step');
    await expect.poll(phase).toBe('waiting');
    await testId('session-run').click();
    expect((await agent.step(5)).info).toMatchObject({ overridden: false, person_steps: 0, action: { action_type: 'wait' } });
    expect(await noHorizontalOverflow()).toBe(true);
  });

  it('says when the agent disconnects, and replays its episode with each step\'s prompt and reply', async () => {
    agent.send('close');
    await agent.line('that it closed', (l) => l.closed === session);
    await expect.poll(phase).toBe('disconnected');
    await expect.poll(() => testId(`outside-state-${session}`).innerText()).toBe('disconnected');
    expect(await testId('session-step').isDisabled()).toBe(true);

    await testId('session-open-episode').click();
    await testId('replay-view').waitFor();
    await expect.poll(() => testId('replay-run').innerText()).toMatch(/e2e outside run \(outside agent\)/);
    await expect.poll(() => testId('replay-position').innerText()).toMatch(/step 1 of 6/);
    // Collapsed, with its size; opened, the screenshot in it by its size, not its 48 kB of base64.
    const prompt = testId('replay-prompt');
    expect(await prompt.evaluate((d: HTMLDetailsElement) => d.open)).toBe(false);
    expect(await testId('replay-prompt-size').innerText()).toMatch(/kB · 1 data URL \(36 kB\)/);
    await prompt.locator('summary').click();
    const text = await testId('replay-prompt-text').innerText();
    expect(text).toContain('Step 1: start the stopwatch.');
    expect(text).toContain('‹data:image/png · 36 kB›');
    expect(text.length).toBeLessThan(2000);
    await testId('replay-reply').locator('summary').click();
    expect(await testId('replay-reply-text').innerText()).toBe('Thought: step 1, the screen is loading.\nAction: wait()');
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(serve.url).origin });
    await testId('replay-prompt-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText().then((t) => JSON.parse(t)[1].content[1].image_url.url.length))).toBe(48_150);
    expect(await noHorizontalOverflow()).toBe(true);

    // The run reads as an outside agent's in the episode list's run filter, and filters as any run.
    await testId('replay-back').first().click();
    const runFilter = testId('filter-run');
    await expect.poll(() => runFilter.locator('optgroup[label="outside agent"] option').allInnerTexts()).toEqual([expect.stringMatching(/e2e outside run/)]);
    await runFilter.selectOption({ label: (await runFilter.locator('optgroup[label="outside agent"] option').innerText()).trim() });
    await expect.poll(() => page.locator('[data-testid^="episode-row-"]').count()).toBe(1);
  });
});
