// Layering is enforced here, not in a README: a path tells where a file runs.
//   core/, emulators/  : the domain and SimDroid; no electron, react, renderer or electron-shell imports;
//                        inside them, folders import only from lower layers (eslint/layers.js, docs/architecture.md)
//   renderer/          : imports core's types only (it talks to the typed API through a bridge)
//   electron/          : main + preload; may import core
// Nothing in core or emulators reads Math.random(): seeds and RNGs are passed in.
import tseslint from 'typescript-eslint';
import layers from './eslint/layers.js';

const UI_AND_SHELL = [
  { group: ['electron', 'electron/*'], message: 'core/ and emulators/ must not import electron.' },
  { group: ['react', 'react-dom', 'react/*', 'react-dom/*', 'zustand', 'zustand/*'], message: 'core/ and emulators/ must not import UI libraries.' },
  { group: ['**/renderer/**', '**/electron/**'], message: 'core/ and emulators/ must not import the renderer or the Electron shell.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.venv/**', 'dist/**', 'coverage/**', 'scratch/**', 'resources/**/*.py'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['core/**/*.ts', 'emulators/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: UI_AND_SHELL }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Pass a seeded Rng (core/util/rng.ts) instead.' }],
    },
  },
  {
    // .mjs too: the worker and host entries import their TypeScript modules.
    files: ['core/**/*.{ts,mjs,js}', 'emulators/**/*.{ts,mjs,js}'],
    plugins: { layers },
    rules: { 'layers/layer-order': 'error' },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          // The bridge's client side and wire codec are the one runtime code the renderer shares with core.
          { regex: '(^|/)core/(?!(api/bridge|util/wire-codec)\\.js$)', allowTypeImports: true, message: 'The renderer imports only types from core; it calls the API through the bridge.' },
          { group: ['electron', 'electron/*'], message: 'The renderer never imports electron; use the preload bridge.' },
        ],
      }],
    },
  },
);
