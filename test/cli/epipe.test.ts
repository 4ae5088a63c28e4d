import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

describe('the CLI piped into a reader that quits early', () => {
  it('stops quietly with exit code 0 instead of crashing on EPIPE', async () => {
    const child = spawn(process.execPath, [AWB, 'tasks', 'list', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Like `| head -0`: the reader is gone before the CLI writes its output.
    child.stdout.destroy();
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
