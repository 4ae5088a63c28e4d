// Compiles the Electron shell with the TypeScript compiler (no bundler, no new dependency):
//   - main and the core modules it imports → dist/electron/… as ES modules (type-checked first);
//   - the preload → dist/electron/electron/preload.cjs as one CommonJS script, because a sandboxed
//     preload is not an ES module and may require nothing but 'electron'.
// The API host is not compiled: Electron runs core/workbench/host-entry.mjs, which loads the TypeScript
// sources through tsx, as the `awb` CLI does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'electron');
const PRELOAD = join(ROOT, 'electron', 'preload.ts');

function report(diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
}

const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'electron', 'tsconfig.json'), { noEmit: false, outDir: OUT }, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => report([d]),
});
if (!config) process.exit(1);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
if (errors.length > 0) {
  report(errors);
  process.exit(1);
}
const emitted = program.emit(undefined, (file, text) => {
  if (resolve(file) === join(OUT, 'electron', 'preload.js')) return; // the CommonJS one is written below
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
});
if (emitted.emitSkipped) {
  report(emitted.diagnostics);
  process.exit(1);
}

const preload = ts.transpileModule(readFileSync(PRELOAD, 'utf8'), {
  fileName: PRELOAD,
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, sourceMap: false },
}).outputText;
const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]).filter((m) => m !== 'electron');
if (required.length > 0) {
  process.stderr.write(`electron/preload.ts requires ${required.join(', ')} at run time; a sandboxed preload may require only 'electron'.\n`);
  process.exit(1);
}
const preloadOut = join(OUT, 'electron', 'preload.cjs');
mkdirSync(dirname(preloadOut), { recursive: true });
writeFileSync(preloadOut, preload);
process.stdout.write(`Electron shell built: ${relative(ROOT, join(OUT, 'electron', 'main.js'))}, ${relative(ROOT, preloadOut)}\n`);
