import { status, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import type { SimDroid } from '../simdroid.js';
import { GrpcRequestError, unary, type Authorize } from './calls.js';

interface SnapshotPackageMsg {
  snapshot_id: string;
}

/** Snapshot names SimDroid stores (the emulator's are folder names under <avd>/snapshots). */
const SNAPSHOT_ID = /^[^/\\\0-\x1f]{1,255}$/;

function snapshotId(req: SnapshotPackageMsg, method: string): string {
  const id = req.snapshot_id;
  if (!SNAPSHOT_ID.test(id) || id === '.' || id === '..') {
    throw new GrpcRequestError(status.INVALID_ARGUMENT, `${method}: snapshot_id must be 1–255 characters with no slash or control character, got ${JSON.stringify(id)}`);
  }
  return id;
}

/** A reply that reports a failure in-band, as the emulator's SnapshotService does (success false, err UTF-8). */
function failed(id: string, message: string) {
  return { snapshot_id: id, success: false, err: Buffer.from(message, 'utf8') };
}

/**
 * SnapshotService over SimDroid's snapshots (the ones `avd snapshot` on the console and the
 * workbench's resets use). The emulator answers a failed load, save or delete with OK and
 * success=false plus an error message; malformed ids are refused with INVALID_ARGUMENT.
 */
export function snapshotService(device: SimDroid, auth: Authorize, log: (m: string) => void): UntypedServiceImplementation {
  // Quick boot resumes from default_boot, which the emulator then reports as the loaded snapshot.
  let loaded: string | null = BOOT_SNAPSHOT;
  return {
    ListSnapshots: unary('ListSnapshots', auth, () => ({
      snapshots: device.listSnapshotsSync().map((name) => {
        const info = device.snapshotInfo(name)!;
        return {
          snapshot_id: name,
          details: { logical_name: name, creation_time: Math.floor(info.savedAtMs / 1000), version: 1 },
          status: name === loaded ? 'Loaded' : 'Compatible',
          size: info.bytes,
        };
      }),
    }), log),
    LoadSnapshot: unary('LoadSnapshot', auth, (req: SnapshotPackageMsg) => {
      const id = snapshotId(req, 'LoadSnapshot');
      if (!device.snapshotInfo(id)) return failed(id, `Snapshot '${id}' does not exist`);
      device.loadSnapshotSync(id);
      loaded = id;
      return { snapshot_id: id, success: true };
    }, log),
    SaveSnapshot: unary('SaveSnapshot', auth, (req: SnapshotPackageMsg) => {
      const id = snapshotId(req, 'SaveSnapshot');
      device.saveSnapshotSync(id);
      return { snapshot_id: id, success: true };
    }, log),
    DeleteSnapshot: unary('DeleteSnapshot', auth, (req: SnapshotPackageMsg) => {
      const id = snapshotId(req, 'DeleteSnapshot');
      if (!device.snapshotInfo(id)) return failed(id, `Snapshot '${id}' does not exist`);
      device.deleteSnapshotSync(id);
      if (loaded === id) loaded = null;
      return { snapshot_id: id, success: true };
    }, log),
  };
}
