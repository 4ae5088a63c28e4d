import { builtinEnvironments } from 'vitest/runtime';

/**
 * happy-dom's DOM in a node-environment test file, for DOM tests that load the real workbench: under
 * the `happy-dom` environment Vite transforms modules for the browser, which rewrites
 * `new URL('./proto/', import.meta.url)` (how core finds its files) to an http://localhost URL.
 * Import this first (it sets the globals before react-dom loads); call closeDom in afterAll, since
 * the shared workers run other files in the same process.
 */
const dom = await builtinEnvironments['happy-dom'].setup(globalThis, {});
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export const closeDom = () => dom.teardown(globalThis);
