// The esbuild executable tsx must run inside a packaged app. electron-builder.yml packs the app into an asar archive
// and unpacks esbuild beside it (app.asar.unpacked): a child process cannot execute from inside an archive, and
// esbuild spawns its executable at the path it resolves, which is inside it. Outside an archive (a checkout): null.
import { createRequire } from 'node:module';

/**
 * The unpacked esbuild executable when this file was loaded from an asar archive and ESBUILD_BINARY_PATH is not set;
 * else null. `resolve` finds a package file from `fromUrl` (default: Node's resolution).
 * @param {string} fromUrl
 * @param {{ env?: Record<string, string | undefined>, platform?: string, arch?: string, resolve?: (id: string) => string }} [o]
 * @returns {string | null}
 */
export function unpackedEsbuild(fromUrl, o = {}) {
  const env = o.env ?? process.env;
  if (env.ESBUILD_BINARY_PATH) return null;
  const platform = o.platform ?? process.platform;
  const pkg = `@esbuild/${platform}-${o.arch ?? process.arch}`;
  const resolve = o.resolve ?? ((id) => createRequire(fromUrl).resolve(id));
  let bin;
  try {
    bin = resolve(platform === 'win32' ? `${pkg}/esbuild.exe` : `${pkg}/bin/esbuild`);
  } catch {
    return null; // esbuild falls back to its own lookup (and says what is missing)
  }
  const inArchive = /([\\/])app\.asar([\\/])/;
  return inArchive.test(bin) ? bin.replace(inArchive, '$1app.asar.unpacked$2') : null;
}
