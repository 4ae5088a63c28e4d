import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { layerFolder, layerViolation } from '../../eslint/layers.js';

/**
 * The folder-level import graph of core/ and emulators/, read from the sources (not from ESLint):
 * a second witness for the layering, for the facts the lint rule's per-import view cannot see
 * (cycles) or does not name (where SimDroid is constructed).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const repoPath = (abs: string) => relative(ROOT, abs).split(sep).join('/');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : /\.(ts|mts|mjs|js)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}

const FILES = [...sourceFiles('core'), ...sourceFiles('emulators')];

interface Edge {
  from: string; // repository-relative file
  to: string; // repository-relative target of a relative specifier
  line: number;
}

/** Every relative import of a file: static, type-only, export-from, import() and import('…').T. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((f) => f.fileName.startsWith('./') || f.fileName.startsWith('../'))
    .map((f) => ({
      from: file,
      to: repoPath(resolve(ROOT, dirname(file), f.fileName)),
      line: text.slice(0, f.pos).split('\n').length,
    }));
}

const EDGES = FILES.flatMap(importsOf);
const show = (e: Edge) => `${e.from}:${e.line} → ${e.to}`;

/** Edges between different layered folders, grouped as folder → folder → the imports behind it. */
function folderGraph(): Map<string, Map<string, Edge[]>> {
  const graph = new Map<string, Map<string, Edge[]>>();
  for (const e of EDGES) {
    const a = layerFolder(e.from);
    const b = layerFolder(e.to);
    if (a === null || b === null || a === b) continue;
    const out = graph.get(a) ?? new Map<string, Edge[]>();
    graph.set(a, out);
    out.set(b, [...(out.get(b) ?? []), e]);
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan): each is a cycle across folders. */
function crossFolderCycles(graph: Map<string, Map<string, Edge[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of core/ and emulators/', () => {
  it('reads the sources it claims to (a guard against an empty graph passing every check)', () => {
    expect(FILES.length).toBeGreaterThan(300);
    expect(EDGES.some((e) => e.from === 'core/cli/main.ts')).toBe(true);
  });

  it('has no import cycle that crosses folders', () => {
    const graph = folderGraph();
    // Each cycle with the imports in it that run against the layer order: the lines to change.
    const cycles = crossFolderCycles(graph).map((folders) => ({
      folders,
      against: folders.flatMap((a) => folders.flatMap((b) => (layerViolation(a, b) ? (graph.get(a)?.get(b) ?? []).map(show) : []))),
    }));
    expect(cycles).toEqual([]);
  });

  it('core/api (the contract and its transports) imports nothing from core/cli', () => {
    expect(EDGES.filter((e) => layerFolder(e.from) === 'core/api' && layerFolder(e.to) === 'core/cli').map(show)).toEqual([]);
  });

  it('emulators/ imports nothing from core/tasks (SimDroid boots from core/seed-data, not from the tasks)', () => {
    expect(EDGES.filter((e) => e.from.startsWith('emulators/') && e.to.startsWith('core/tasks/')).map(show)).toEqual([]);
  });

  it('constructs SimDroid in core only in the device provider (core/devices/provider.ts)', () => {
    // The AST, not the text: a comment that mentions `new SimDroid()` constructs nothing.
    const sites: string[] = [];
    for (const file of FILES.filter((f) => f.startsWith('core/'))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (!text.includes('SimDroid')) continue;
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'SimDroid') {
          sites.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(sites.filter((s) => !s.startsWith('core/devices/provider.ts:'))).toEqual([]);
    expect(sites.some((s) => s.startsWith('core/devices/provider.ts:'))).toBe(true);
  });
});
