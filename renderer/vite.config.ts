import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The renderer is plain React (JSX compiled by Vite's own transform; no dev-server plugins needed).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
  },
});
