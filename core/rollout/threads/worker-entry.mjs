// Worker threads start with Node's plain loader; register tsx so the TypeScript worker loads as
// it does in the main thread (`awb` runs the sources through tsx too).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
