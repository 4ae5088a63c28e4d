import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util/out/DebugLogger.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { unpackedEsbuild } from '../../core/workbench/esbuild-path.mjs';
import { EXTERNAL_HOSTS, isAllowedExternal } from '../../electron/security.js';

/**
 * Issue 32: the packaged app's walls that are not in the code: Electron's fuses and an integrity-checked asar archive,
 * as electron-builder reads electron-builder.yml (its own schema validation is the judge of the keys), the esbuild
 * path that makes the TypeScript host run from the archive, and the sites a link may open.
 */
let config: Awaited<ReturnType<typeof getConfig>>;
beforeAll(async () => {
  // Read as electron-builder reads it (electron-builder.yml, package.json's "build" merged in).
  config = await getConfig(process.cwd(), 'electron-builder.yml', null);
});

describe('electron-builder.yml', () => {
  it('passes electron-builder\'s own validation of its configuration', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('flips the fuses: no run-as-node, no NODE_OPTIONS or inspector, encrypted cookies, an integrity-checked asar as the only app', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false, enableNodeOptionsEnvironmentVariable: false, enableNodeCliInspectArguments: false, enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true, onlyLoadAppFromAsar: true, grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
    // What cannot run from inside the archive: native addons and esbuild's executable.
    expect(config.asarUnpack as string[]).toEqual(expect.arrayContaining(['**/*.node', 'node_modules/better-sqlite3/**', 'node_modules/@esbuild/**']));
  });
});

describe('the packaged host', () => {
  it('runs the unpacked esbuild when loaded from an asar archive, and leaves a checkout and an explicit ESBUILD_BINARY_PATH alone', () => {
    const fromArchive = (id: string) => `/opt/awb/resources/app.asar/node_modules/${id}`;
    expect(unpackedEsbuild('file:///x', { env: {}, platform: 'linux', arch: 'x64', resolve: fromArchive }))
      .toBe('/opt/awb/resources/app.asar.unpacked/node_modules/@esbuild/linux-x64/bin/esbuild');
    expect(unpackedEsbuild('file:///x', { env: {}, platform: 'win32', arch: 'x64', resolve: (id: string) => `C:\\awb\\resources\\app.asar\\node_modules\\${id}` }))
      .toBe('C:\\awb\\resources\\app.asar.unpacked\\node_modules\\@esbuild/win32-x64/esbuild.exe');
    expect(unpackedEsbuild(import.meta.url, { env: {} })).toBeNull(); // this checkout: not in an archive
    expect(unpackedEsbuild('file:///x', { env: { ESBUILD_BINARY_PATH: '/mine' }, resolve: fromArchive })).toBeNull();
  });
});

describe('links to the outside', () => {
  it('opens only https pages of the allowed sites, without a port or credentials', () => {
    expect([...EXTERNAL_HOSTS]).toContain('github.com');
    for (const url of ['https://github.com/org/repo#readme', 'https://huggingface.co/Qwen/Qwen2.5-VL-3B-Instruct']) expect(isAllowedExternal(url), url).toBe(true);
    for (const url of ['http://github.com/', 'https://github.com.evil.example/', 'https://evil.example/?github.com', 'https://user:pw@github.com/',
      'https://github.com:8443/', 'file:///etc/passwd', 'javascript:alert(1)', 'ms-settings:', 'smb://host/share', 'not a url']) {
      expect(isAllowedExternal(url), url).toBe(false);
    }
  });
});
