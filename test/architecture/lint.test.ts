import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The layering is a lint rule; these prove the rule bites. */
const eslint = new ESLint({ cwd: process.cwd() });

async function lint(filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.map((m) => m.message);
}

describe('layering lint rules', () => {
  it('fails a core file that imports electron', async () => {
    expect(await lint('core/device/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([
      expect.stringContaining('must not import electron'),
    ]);
  });

  it('fails an emulator file that imports react or the renderer', async () => {
    const msgs = await lint('emulators/simdroid/x.ts', "import React from 'react';\nimport { s } from '../../renderer/store.js';\nexport const a = [React, s];\n");
    expect(msgs).toHaveLength(2);
  });

  it('fails Math.random in core', async () => {
    expect(await lint('core/tasks/x.ts', 'export const r = Math.random();\n')).toEqual([expect.stringContaining('seeded Rng')]);
  });

  it('lets the renderer import core types but not core values', async () => {
    expect(await lint('renderer/x.ts', "import type { Action } from '../core/actions/schema.js';\nexport type A = Action;\n")).toEqual([]);
    expect(await lint('renderer/y.ts', "import { parseAction } from '../core/actions/schema.js';\nexport const p = parseAction;\n")).toHaveLength(1);
  });

  it("lets the renderer import the bridge's client and codec, and nothing else of core/api at run time", async () => {
    expect(await lint('renderer/src/x.ts', "import { connectApi } from '../../core/api/bridge.js';\nimport { encodeMessage } from '../../core/util/wire-codec.js';\nexport const c = [connectApi, encodeMessage];\n")).toEqual([]);
    expect(await lint('renderer/src/y.ts', "import { serveApi } from '../../core/api/serve-api.js';\nexport const s = serveApi;\n")).toHaveLength(1);
  });
});

/** The layer-order rule's messages only (eslint/layers.js), so other rules' findings don't blur the check. */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.filter((m) => m.ruleId === 'layers/layer-order').map((m) => m.message);
}

describe('the layer order inside core/ (eslint/layers.js)', () => {
  it('fails a lower layer importing a higher one, and names both', async () => {
    expect(await layerErrors('core/util/x.ts', "import { main } from '../cli/main.js';\nexport const m = main;\n")).toEqual([
      expect.stringContaining('core/util (layer 1) may not import core/cli (layer 20)'),
    ]);
  });

  it('lets a higher layer import a lower one, and a folder import itself', async () => {
    expect(await layerErrors('core/cli/x.ts', "import { makeRng } from '../util/rng.js';\nexport const r = makeRng;\n")).toEqual([]);
    expect(await layerErrors('core/tasks/families/x/y.ts', "import { a } from '../../registry.js';\nimport { b } from '../clock/common.js';\nexport const c = [a, b];\n")).toEqual([]);
    expect(await layerErrors('emulators/simdroid/apps/x.ts', "import { people } from '../../../core/seed-data/people.js';\nexport const p = people;\n")).toEqual([]);
  });

  it('counts type imports, export-from, import() and import-types, not only value imports', async () => {
    const upward = [
      "import type { Api } from '../api/api.js';\nexport type A = Api;\n",
      "import { type Api } from '../api/api.js';\nexport type A = Api;\n",
      "export { main } from '../cli/main.js';\n",
      "export * from '../cli/main.js';\n",
      "export const load = () => import('../cli/main.js');\n",
      "export type A = import('../api/api.js').Api;\n",
    ];
    for (const code of upward) expect(await layerErrors('core/episode/x.ts', code), code).toHaveLength(1);
  });

  it('fails same-rank folders importing each other (core/policy | core/store)', async () => {
    expect(await layerErrors('core/policy/x.ts', "import type { Db } from '../store/db.js';\nexport type D = Db;\n")).toEqual([
      expect.stringContaining('share a layer'),
    ]);
    expect(await layerErrors('core/store/x.ts', "import type { Policy } from '../policy/network.js';\nexport type P = Policy;\n")).toEqual([
      expect.stringContaining('share a layer'),
    ]);
  });

  it('keeps SimDroid below the device provider and the tasks', async () => {
    expect(await layerErrors('emulators/simdroid/x.ts', "import { families } from '../../core/tasks/registry.js';\nexport const f = families;\n")).toHaveLength(1);
    expect(await layerErrors('core/device/x.ts', "import { SimDroid } from '../../emulators/simdroid/simdroid.js';\nexport const s = SimDroid;\n")).toHaveLength(1);
    expect(await layerErrors('core/devices/x.ts', "import { SimDroid } from '../../emulators/simdroid/simdroid.js';\nexport const s = SimDroid;\n")).toEqual([]);
  });

  it('fails a folder that is not yet placed in the order, and imports into it', async () => {
    expect(await layerErrors('core/scheduler/x.ts', 'export const a = 1;\n')).toEqual([expect.stringContaining('core/scheduler is not in the layer order')]);
    expect(await layerErrors('emulators/other/x.ts', 'export const a = 1;\n')).toEqual([expect.stringContaining('emulators/other is not in the layer order')]);
    expect(await layerErrors('core/cli/x.ts', "import { a } from '../scheduler/x.js';\nexport const b = a;\n")).toEqual([
      expect.stringContaining('core/scheduler, which is not in the layer order'),
    ]);
  });

  it('checks the .mjs entries too (they import the TypeScript modules)', async () => {
    expect(await layerErrors('core/episode/x.mjs', "await import('../workbench/host.ts');\n")).toHaveLength(1);
  });

  it('leaves files outside core/ and emulators/ alone', async () => {
    expect(await layerErrors('test/x.ts', "import { main } from '../core/cli/main.js';\nexport const m = main;\n")).toEqual([]);
  });
});
