import { afterEach, describe, expect, it } from 'vitest';
import { parseRequest } from '../../core/env/protocol.js';
import { EnvService, type EnvDevices } from '../../core/env/service.js';
import { listRuns, openStore, type WritableDB } from '../../core/store/index.js';

/**
 * The error names docs/env-protocol.md's table promises, where the server first answered otherwise (found by the
 * Python client's tests): a seed out of range is SeedError, an observation spec the device cannot give is
 * ObservationSpecError, and a bad task is refused before a device is taken or a run is made.
 */

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('request errors as the protocol names them', () => {
  it('a reset seed below 0 is a SeedError naming the field and the value', () => {
    const e = errorOf(() => parseRequest({ id: 1, op: 'reset', session: 'x', seed: -1 }));
    expect(e.name).toBe('SeedError');
    expect(e.message).toBe('reset: seed: a seed is an integer from 0 to 2147483647, got -1');
  });

  it("a create task's seed past 2^31-1 is a SeedError", () => {
    const e = errorOf(() => parseRequest({ id: 1, op: 'create', task: { template: 'ContactsAddContact', seed: 2 ** 31 } }));
    expect(e.name).toBe('SeedError');
    expect(e.message).toContain('create: task.seed');
    expect(e.message).toContain('2147483648');
  });

  it('an observation scale the device cannot give is an ObservationSpecError', () => {
    const e = errorOf(() => parseRequest({ id: 1, op: 'create', task: { template: 'ContactsAddContact' }, observation: { scale: 0.3 } }));
    expect(e.name).toBe('ObservationSpecError');
    expect(e.message).toContain('observation.scale');
  });

  it('other bad fields stay ProtocolError', () => {
    const e = errorOf(() => parseRequest({ id: 1, op: 'create', task: { template: 'ContactsAddContact' }, max_steps: 0 }));
    expect(e.name).toBe('ProtocolError');
  });
});

describe('create checks the task first', () => {
  let db: WritableDB | null = null;
  afterEach(() => {
    db?.close();
    db = null;
  });

  it('an unknown template takes no device and makes no run', async () => {
    db = openStore(':memory:');
    const store = db;
    const leased: string[] = [];
    const devices: EnvDevices = {
      lease: (spec) => {
        leased.push(spec);
        return Promise.reject(new Error('no device in this test'));
      },
      describe: () => Promise.resolve({ simdroid: 1, adb: [] }),
    };
    const service = new EnvService({ db: () => store, devices, server: 'test', log: () => {} });
    const req = parseRequest({ id: 1, op: 'create', task: { template: 'ContactsAdd', seed: 1 } });
    if (req.op !== 'create') throw new Error('not a create');
    await expect(service.create(req, () => {})).rejects.toMatchObject({ name: 'UnknownTemplateError' });
    expect(leased).toEqual([]);
    expect(listRuns(store)).toEqual([]);
  });
});
