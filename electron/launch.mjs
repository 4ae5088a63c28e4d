// `npm start`'s last step: runs the compiled shell (electron/build.mjs) in Electron, or says plainly
// why it cannot. Resolving the `electron` package's path would try to download the binary, which
// fails without network, so the binary is looked up here first.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = join(ROOT, 'dist', 'electron', 'electron', 'main.js');
const PKG = join(ROOT, 'node_modules', 'electron');

function fail(message) {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(1);
}

function electronBinary() {
  if (!existsSync(join(PKG, 'package.json'))) fail('the electron package is not installed: run `npm ci`.');
  const pathFile = join(PKG, 'path.txt');
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  // As the electron package itself resolves it (node_modules/electron/index.js).
  const binary = override ? join(override, relativePath ?? 'electron') : relativePath ? join(PKG, 'dist', relativePath) : null;
  if (!binary || !existsSync(binary)) {
    fail([
      `the Electron binary is not installed (${binary ?? join(PKG, 'dist')} is missing).`,
      '  Its download (postinstall of the electron package) was skipped or had no network. With network access run:',
      '    node node_modules/electron/install.js',
      '  or point ELECTRON_OVERRIDE_DIST_PATH at an unpacked Electron 45 folder.',
      '  The same UI runs in a browser without Electron: npm run build && node bin/awb.js serve',
    ].join('\n'));
  }
  return binary;
}

// `--check`: only look for the binary (npm start does this first, to fail before building).
const binary = electronBinary();
if (process.argv[2] === '--check') process.exit(0);
if (!existsSync(MAIN)) fail(`${MAIN} is missing: run \`node electron/build.mjs\` (npm start does).`);
const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE; // would start Electron as plain Node instead of the app
const child = spawn(binary, [MAIN, ...process.argv.slice(2)], { stdio: 'inherit', env });
child.on('error', (e) => fail(`could not start Electron: ${e.message}`));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
