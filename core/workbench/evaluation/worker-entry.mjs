// Worker threads start with Node's plain loader; register tsx so the TypeScript evaluation worker
// loads as the rest of the workbench does (as ../training/worker-entry.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
