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
    expect(await lint('renderer/src/x.ts', "import { connectApi } from '../../core/api/bridge.js';\nimport { encodeMessage } from '../../core/api/codec.js';\nexport const c = [connectApi, encodeMessage];\n")).toEqual([]);
    expect(await lint('renderer/src/y.ts', "import { serveApi } from '../../core/api/serve-api.js';\nexport const s = serveApi;\n")).toHaveLength(1);
  });
});
