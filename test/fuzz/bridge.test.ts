import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelPair, type BridgeMessage, type Channel } from '../../core/api/bridge.js';
import { decodeMessage, encodeMessage, WireFormatError } from '../../core/util/wire-codec.js';
import { API_INPUTS, ApiInputError, parseInput } from '../../core/api/inputs.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { argumentFor, declaredErrorNames, guarded, memberName, noteResult, NOT_RUN_ERROR, params, Tally, TIMEOUT_MS, wireValue } from './fuzz.js';

/**
 * Fuzzing the bridge (issue 16, place 2): the wire codec, the API's input schemas, and serveApi
 * answering arbitrary requests from a real workbench over an in-memory channel pair (the channel
 * structured-clones, as Electron's IPC does, so arguments may be Maps, Dates, BigInts, …).
 */
const tally = new Tally('bridge (codec, inputs, serveApi)');
const ALLOWED = declaredErrorNames().add(NOT_RUN_ERROR);

/** Bytes of a message, then changed: a flipped byte, a cut, a length field rewritten, bytes appended. */
const corruptedBinary = fc.record({
  value: wireValue,
  edits: fc.array(fc.oneof(
    fc.record({ op: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
    fc.record({ op: fc.constant('length' as const), at: fc.nat(), value: fc.oneof(fc.nat(), fc.constant(0xffffffff), fc.constant(0x7fffffff)) }),
    fc.record({ op: fc.constant('append' as const), bytes: fc.uint8Array({ maxLength: 16 }) }),
  ), { minLength: 1, maxLength: 4 }),
}).map(({ value, edits }) => {
  const encoded = encodeMessage({ t: 'call', id: 1, m: 'x', a: [value, new Uint8Array([1, 2, 3])] });
  let bytes = typeof encoded === 'string' ? new TextEncoder().encode(encoded) : encoded;
  for (const e of edits) {
    if (e.op === 'flip' && bytes.length) bytes[e.at % bytes.length] = e.byte;
    else if (e.op === 'cut') bytes = bytes.slice(0, e.at % (bytes.length + 1));
    else if (e.op === 'length' && bytes.length >= 4) new DataView(bytes.buffer, bytes.byteOffset).setUint32(4 * Math.floor((e.at % bytes.length) / 4) % (bytes.length - 3), e.value, true);
    else if (e.op === 'append') bytes = new Uint8Array([...bytes, ...e.bytes]);
  }
  return bytes;
});

/** Nesting deep enough to matter (a recursive reviver or stringify), within the 1 MiB frame limit. */
const deeplyNested = fc.record({ depth: fc.integer({ min: 1000, max: 20_000 }), open: fc.constantFrom('[', '{"a":'), bin: fc.boolean() }).map(({ depth, open, bin }) => {
  const close = open === '[' ? ']' : '}';
  const json = `${open.repeat(depth)}1${close.repeat(depth)}`;
  if (!bin) return json;
  const head = new TextEncoder().encode(json);
  const out = new Uint8Array(4 + head.length);
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  return out;
});

describe('fuzz: wire codec', () => {
  it('decode(encode(v)) is v for plain values with bytes anywhere', () => {
    fc.assert(fc.property(wireValue, (v) => {
      tally.add('codec round trips');
      const wire = encodeMessage(v);
      expect(decodeMessage(wire)).toEqual(v);
    }), params(2000));
  }, TIMEOUT_MS);

  it('decode of arbitrary text, bytes, corrupted and deeply nested messages returns or throws WireFormatError', () => {
    const garbage = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
      { weight: 4, arbitrary: fc.json() },
      { weight: 4, arbitrary: fc.uint8Array({ maxLength: 200 }) },
      { weight: 8, arbitrary: corruptedBinary },
      { weight: 1, arbitrary: deeplyNested },
    );
    fc.assert(fc.property(garbage, (data) => {
      tally.add('codec garbage');
      try {
        decodeMessage(data);
        tally.saw('decoded');
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(WireFormatError);
        tally.saw('WireFormatError');
      }
    }), params(2000));
  }, TIMEOUT_MS);
});

describe('fuzz: API input schemas', () => {
  it('parseInput returns or throws ApiInputError for any member and any input', () => {
    const input = fc.oneof(
      argumentFor(memberName),
      fc.record({ m: memberName, a: fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }) }),
    );
    fc.assert(fc.property(input, ({ m, a }) => {
      tally.add('parseInput');
      try {
        parseInput(m, a);
        expect(Object.hasOwn(API_INPUTS, m)).toBe(true);
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(ApiInputError);
      }
    }), params(2000));
  }, TIMEOUT_MS);
});

describe('fuzz: serveApi over a channel pair with a real workbench', () => {
  let dir: string;
  let workbench: Workbench;
  let client: Channel;
  let server: Channel & { close(): void };
  const replies = new Map<number, BridgeMessage>();
  const waiters = new Map<number, () => void>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-fuzz-bridge-'));
    workbench = await createWorkbench({ dataDir: join(dir, 'data'), adb: false });
    const [c, s] = channelPair() as [Channel, Channel & { close(): void }];
    client = c;
    server = s;
    serveApi(guarded(workbench), server);
    client.onMessage((msg) => {
      if (msg.t === 'ev') return;
      expect(replies.has(msg.id), `a second reply to ${msg.id}`).toBe(false);
      replies.set(msg.id, msg);
      waiters.get(msg.id)?.();
    });
  });

  afterAll(async () => {
    server?.close();
    await workbench?.close();
    rmSync(dir, { recursive: true, force: true });
    console.log(tally.report());
  });

  let nextId = 1;
  const reply = (id: number, ms = 20_000) => new Promise<BridgeMessage>((resolve, reject) => {
    const got = replies.get(id);
    if (got) return resolve(got);
    const timer = setTimeout(() => reject(new Error(`no reply to request ${id} in ${ms} ms`)), ms);
    waiters.set(id, () => {
      clearTimeout(timer);
      waiters.delete(id);
      resolve(replies.get(id)!);
    });
  });

  const structured = fc.anything({ maxDepth: 3, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withBoxedValues: true });
  const request = fc.oneof(
    { weight: 4, arbitrary: argumentFor(memberName).map(({ m, a }) => ({ t: 'call' as const, m, a })) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('call' as const), m: memberName, a: structured }) },
    { weight: 1, arbitrary: argumentFor(memberName).map(({ m, a }) => ({ t: 'sub' as const, m, a })) },
  );

  it('answers every call with ret or a named err, and keeps serving', async () => {
    await fc.assert(fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (batch) => {
      const calls: Array<{ id: number; m: string }> = [];
      const subs: number[] = [];
      for (const r of batch) {
        const id = nextId++;
        client.send({ ...r, id } as BridgeMessage);
        if (r.t === 'call') calls.push({ id, m: r.m });
        else subs.push(id);
      }
      tally.add('serveApi requests', batch.length);
      for (const { id, m } of calls) {
        const msg = await reply(id);
        expect(['ret', 'err'], m).toContain(msg.t);
        tally.saw(msg.t === 'err' ? `err ${msg.e.name}` : `ret ${m}`);
        if (msg.t === 'ret') noteResult(m, msg.v);
        if (msg.t === 'err') expect(ALLOWED, `${m}: ${msg.e.name}: ${msg.e.message}`).toContain(msg.e.name);
      }
      // A subscription answers only on failure, and then with a named error.
      await new Promise((r) => setImmediate(r));
      for (const id of subs) {
        const msg = replies.get(id);
        if (msg?.t === 'err') expect(ALLOWED, `${msg.e.name}: ${msg.e.message}`).toContain(msg.e.name);
        client.send({ t: 'unsub', id });
      }
      // Still serving.
      const id = nextId++;
      client.send({ t: 'call', id, m: 'listPolicies', a: {} });
      expect((await reply(id)).t).toBe('ret');
    }), params(300, 0.5));
  }, TIMEOUT_MS);
});
