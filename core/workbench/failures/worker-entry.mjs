// Worker threads start with Node's plain loader; register tsx so the TypeScript failure-analysis
// worker loads as the rest of the workbench does (as ../evaluation/worker-entry.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
