// The layer order inside core/ (and SimDroid beside it), lowest first: a folder may import only
// from folders on an earlier rank, or from itself. Folders sharing a rank may not import each other.
// docs/architecture.md draws this list; test/architecture/ checks the diagram against it.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @type {readonly (readonly string[])[]} */
export const LAYERS = [
  ['core/util'],
  ['core/llm'],
  ['core/seed-data'],
  ['core/a11y'],
  ['core/device'],
  ['emulators/simdroid'],
  ['core/devices'],
  ['core/actions'],
  ['core/tasks'],
  ['core/episode'],
  ['core/policy', 'core/store'],
  ['core/rewards'],
  ['core/analysis'],
  ['core/env'],
  ['core/rollout'],
  ['core/rl'],
  ['core/remote-jobs'],
  ['core/api'],
  ['core/workbench'],
  ['core/cli'],
];

/** Folder → rank (0 = lowest). */
const RANK = new Map(LAYERS.flatMap((rank, i) => rank.map((folder) => [folder, i])));

// Paths are judged relative to the repository root (this file lives in <root>/eslint/), not the
// shell's working directory, so `eslint` run from a subfolder judges the same way.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The layered folder a repository-relative path lies in: 'core/<first segment>' or
 * 'emulators/<first segment>'; null for paths outside core/ and emulators/ (not layered here).
 * A file directly in core/ or emulators/ gets the folder itself ('core'), which no rank holds.
 * @param {string} repoPath  forward-slash path relative to the repository root
 * @returns {string | null}
 */
export function layerFolder(repoPath) {
  const parts = repoPath.split('/');
  if (parts[0] !== 'core' && parts[0] !== 'emulators') return null;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * Why `fromFolder` may not import `toFolder`, or null when it may.
 * @param {string} fromFolder
 * @param {string} toFolder
 * @returns {{ messageId: 'upward' | 'sameRank' | 'unplacedTarget', data: Record<string, string> } | null}
 */
export function layerViolation(fromFolder, toFolder) {
  if (fromFolder === toFolder) return null;
  const from = RANK.get(fromFolder);
  const to = RANK.get(toFolder);
  if (to === undefined) return { messageId: 'unplacedTarget', data: { from: fromFolder, to: toFolder } };
  if (from === undefined) return null; // the importing file's own folder is reported once, on the file
  if (to === from) return { messageId: 'sameRank', data: { from: fromFolder, to: toFolder } };
  if (to > from) return { messageId: 'upward', data: { from: fromFolder, to: toFolder, fromRank: String(from + 1), toRank: String(to + 1) } };
  return null;
}

const toRepoPath = (abs) => relative(ROOT, abs).split(sep).join('/');

/** @type {import('eslint').Rule.RuleModule} */
const layerOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'core/ and emulators/ folders import only from lower layers (eslint/layers.js, docs/architecture.md)' },
    schema: [],
    messages: {
      upward: "{{from}} (layer {{fromRank}}) may not import {{to}} (layer {{toRank}}): a folder imports only from layers below it (docs/architecture.md).",
      sameRank: '{{from}} may not import {{to}}: they share a layer, and neither may import the other (docs/architecture.md).',
      unplacedTarget: '{{from}} imports {{to}}, which is not in the layer order: place it in eslint/layers.js first.',
      unplacedFile: '{{folder}} is not in the layer order: place it in eslint/layers.js (and docs/architecture.md) before adding files to it.',
    },
  },
  create(context) {
    const file = toRepoPath(context.filename);
    const fromFolder = layerFolder(file);
    if (fromFolder === null) return {};

    /** @param {import('estree').Node | null | undefined} source */
    function check(source) {
      // Only string-literal relative specifiers name a file here; packages are other rules' concern.
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (!spec.startsWith('./') && !spec.startsWith('../')) return;
      const toFolder = layerFolder(toRepoPath(resolve(dirname(context.filename), spec)));
      if (toFolder === null) return;
      const violation = layerViolation(fromFolder, toFolder);
      if (violation) context.report({ node: source, ...violation });
    }

    return {
      Program(node) {
        if (!RANK.has(fromFolder)) context.report({ node, messageId: 'unplacedFile', data: { folder: fromFolder } });
      },
      // `import type` and inline type specifiers are ImportDeclarations too: types count.
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `import('../x.js').T` in a type position
      TSImportType: (node) => check(node.source),
    };
  },
};

export default { meta: { name: 'awb-layers' }, rules: { 'layer-order': layerOrder } };
