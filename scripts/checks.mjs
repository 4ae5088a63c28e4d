#!/usr/bin/env node
// The static half of `npm test`: the two type-checks, lint and the renderer build, run side by side (each is
// single-threaded, so on 2 cores this takes about half the time of running them in a row). The Electron shell is
// type-checked inside the core program (tsconfig.json includes electron/): checked apart, it re-checked the core
// modules it imports, a minute of CPU; electron/tsconfig.json remains for electron/build.mjs's emit. Each one's output is
// printed when it ends, under its name; the exit code is non-zero when any failed.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['typecheck core + electron', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['typecheck renderer', 'npx', ['tsc', '-p', 'renderer/tsconfig.json']],
  ['lint', 'npx', ['eslint', '.']],
  ['build renderer', 'npx', ['vite', 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']],
];

const started = Date.now();
const results = await Promise.all(CHECKS.map(([name, cmd, args]) => new Promise((resolve) => {
  const t0 = Date.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { out += c; });
  child.on('close', (code) => {
    const s = ((Date.now() - t0) / 1000).toFixed(1);
    const text = out.split('\n').filter((l) => !l.startsWith('npm warn Unknown project config')).join('\n').trim();
    console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${s} s)${text ? `\n${text}` : ''}`);
    resolve(code === 0);
  });
})));
console.log(`checks: ${results.filter(Boolean).length}/${CHECKS.length} passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(results.every(Boolean) ? 0 : 1);
