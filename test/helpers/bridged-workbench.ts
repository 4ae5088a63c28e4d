import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createWorkbench, type Workbench, type WorkbenchOptions } from '../../core/workbench/index.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';

/** A real workbench in a fresh temp data folder, and the renderer's store talking to it over the in-memory bridge. */
export interface BridgedWorkbench {
  dir: string;
  workbench: Workbench;
  store: AppStore;
  /** Closes the workbench and deletes the data folder. */
  close(): Promise<void>;
}

/**
 * The renderer slice tests' setup: a temp data folder named `<tmpdir>/<prefix>XXXXXX`, a workbench on it (no adb
 * and no embedded SimDroid unless `options` say otherwise), served over a channel pair the way the Electron
 * preload does, and `createAppStore` on the client end. `prepare` runs on the empty folder before the workbench
 * opens it (files the workbench should find at start).
 */
export async function bridgedWorkbench(
  prefix: string,
  options: Omit<Partial<WorkbenchOptions>, 'dataDir'> = {},
  prepare?: (dir: string) => void | Promise<void>,
): Promise<BridgedWorkbench> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let workbench: Workbench;
  try {
    await prepare?.(dir);
    workbench = await createWorkbench({ adb: false, embeddedDevice: false, ...options, dataDir: dir });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const [client, server] = channelPair();
  serveApi(workbench, server);
  const store = createAppStore(connectApi<WorkbenchApi>(client));
  return {
    dir,
    workbench,
    store,
    async close() {
      await workbench.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
