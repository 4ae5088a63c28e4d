/**
 * The bundle tar writer (core/util/tar.ts, node-tar's headers): entries of screenshot size written to a file and
 * hashed, as a VLM bundle is. `AWB_BENCH_TAR_OTHER=FILE.ts` times another TarWriter beside it, round by round (the
 * hand-written writer this one replaced: `git show a90b024:core/remote-jobs/tar.ts > /tmp/tar-old.ts`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TarWriter } from '../core/util/tar.js';
import { stats } from './stats.js';

type Writer = new (path: string, mtimeS: number) => { add(name: string, data: Buffer): void; finish(): { size: number; sha256: string } };

export async function benchTar(): Promise<Record<string, unknown>> {
  const writers: Array<[string, Writer]> = [['node-tar headers', TarWriter]];
  const other = process.env.AWB_BENCH_TAR_OTHER;
  if (other) writers.push([`other (${other})`, ((await import(pathToFileURL(resolve(other)).href)) as { TarWriter: Writer }).TarWriter]);
  // 3,000 entries of 20–50 KB (half-resolution screenshots), 107 MB in all; names as the bundle names them.
  const entries = Array.from({ length: 3000 }, (_, i) => [`screenshots/${randomBytes(32).toString('hex')}.png`, randomBytes(20_000 + (i % 7) * 5000)] as const);
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-tar-'));
  const ms: Record<string, number[]> = Object.fromEntries(writers.map(([n]) => [n, []]));
  let bytes = 0;
  try {
    for (let round = 0; round < 5; round++) {
      for (const [name, W] of writers) {
        const t0 = performance.now();
        const w = new W(join(dir, 'b.tar'), 1_700_000_000);
        for (const [n, d] of entries) w.add(n, d);
        bytes = w.finish().size;
        ms[name]!.push(performance.now() - t0);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out: Record<string, unknown> = { entries: entries.length, megabytes: bytes / 1e6 };
  for (const [name] of writers) {
    const s = stats(ms[name]!);
    out[name] = { medianMs: s.median, maxMs: s.max, mbPerS: bytes / 1e6 / (s.median / 1000) };
    console.log(`${name}: median ${s.median.toFixed(0)} ms (${(bytes / 1e6 / (s.median / 1000)).toFixed(0)} MB/s), max ${s.max.toFixed(0)} ms over ${s.n} rounds`);
  }
  return out;
}
