// The API host's entry for Electron's utilityProcess.fork (which runs JavaScript files only):
// register tsx so host.ts loads from the TypeScript sources, as `awb` and the rollout workers do.
// In a packaged app (an asar archive) tsx's esbuild runs the unpacked executable (esbuild-path.mjs); the variable is
// set before tsx loads, and the rollout and training worker threads inherit it.
import { unpackedEsbuild } from './esbuild-path.mjs';

const esbuild = unpackedEsbuild(import.meta.url);
if (esbuild) process.env.ESBUILD_BINARY_PATH = esbuild;
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('./host.ts');
await main();
