// The API host's entry for Electron's utilityProcess.fork (which runs JavaScript files only):
// register tsx so host.ts loads from the TypeScript sources, as `awb` and the rollout workers do.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./host.ts');
await main();
