#!/usr/bin/env node
// The `awb` command. Runs the TypeScript sources through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../core/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
