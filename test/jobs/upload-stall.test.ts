import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UploadStalledError } from '../../core/remote-jobs/errors.js';
import { fastClient, scratch, syntheticBundle, TOKEN } from './fixture.js';
import { startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * Issue 16, D9, against the real trainer: a client whose connection vanished without a FIN leaves the trainer
 * receiving that upload; every other PUT of it answers 409 until the trainer gives up on the silent connection.
 * The client sent 27,030 HEAD + PUT pairs in 120 s (a 409 was retried at once); now it backs off with jitter
 * within a bounded budget, and the trainer releases a stalled chunk after --upload-read-timeout.
 */
const tmp = scratch('awb-upload-stall-');
let trainer: RealTrainer | undefined;
let stalled: Socket | undefined;
afterEach(async () => {
  stalled?.destroy();
  await trainer?.stop();
  tmp.cleanup();
});

/** A PUT of the first chunk that sends its headers and part of its body, then goes silent without closing. */
async function silentUpload(port: number, sha: string, bytes: Buffer): Promise<Socket> {
  const s = connect({ host: '127.0.0.1', port });
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(`PUT /v1/uploads/${sha} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`
    + `Content-Range: bytes 0-${bytes.length - 1}/${bytes.length}\r\nContent-Length: ${bytes.length}\r\n\r\n`);
  s.write(bytes.subarray(0, 700));
  s.on('error', () => {});
  await new Promise((r) => setTimeout(r, 300)); // the trainer has started receiving
  return s;
}

function counting(client: Parameters<typeof fastClient>[1] = {}) {
  const waits: number[] = [];
  const sleep = (ms: number) => (waits.push(ms), new Promise<void>((r) => setTimeout(r, ms)));
  return { waits, extra: { backoffMs: 200, maxBackoffMs: 800, sleep, ...client } };
}

describe('an upload held by a vanished connection (real trainer)', () => {
  it('is released by the trainer and completed by the client after a few jittered waits', async () => {
    trainer = await startRealTrainer(tmp.dir(), TOKEN, 30_000, ['--upload-read-timeout', '2']);
    const { bundle } = syntheticBundle(tmp.dir());
    stalled = await silentUpload(trainer.port, bundle.sha256, readFileSync(bundle.file));
    const { waits, extra } = counting();
    const client = fastClient(trainer.url, extra);
    const result = await client.upload(bundle.file, bundle.sha256);
    expect(result.size).toBe(readFileSync(bundle.file).length);
    expect(await client.uploadStatus(bundle.sha256)).toMatchObject({ complete: true });
    expect(waits.length).toBeGreaterThan(0); // it did meet the 409s
    expect(waits.length).toBeLessThan(15); // ≈ 2 s of waiting, not thousands of requests
    // Equal jitter: each wait lies in [½, 1] of its nominal delay, and they are not all the nominal value.
    waits.forEach((ms, k) => {
      const nominal = Math.min(800, 200 * 2 ** k);
      expect(ms).toBeGreaterThanOrEqual(nominal / 2);
      expect(ms).toBeLessThanOrEqual(nominal);
    });
    expect(new Set(waits.map((ms, k) => ms / Math.min(800, 200 * 2 ** k))).size).toBeGreaterThan(1);
  });

  it('gives up within its budget with a named error that says the trainer is up', async () => {
    trainer = await startRealTrainer(tmp.dir(), TOKEN, 30_000, ['--upload-read-timeout', '60']);
    const { bundle } = syntheticBundle(tmp.dir());
    stalled = await silentUpload(trainer.port, bundle.sha256, readFileSync(bundle.file));
    const { waits, extra } = counting({ uploadStallMs: 1500 });
    const started = Date.now();
    const err = await fastClient(trainer.url, extra).upload(bundle.file, bundle.sha256).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadStalledError);
    expect((err as Error).message).toMatch(/made no progress for \d+ s at 0 of \d+ bytes; the trainer is up but answered: 409 conflict: another request is uploading [0-9a-f]{64}\. Try again later/);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThan(1500);
    expect(waits.length).toBeLessThan(10);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
