// Types for eslint/layers.js, so the architecture tests (TypeScript) can reuse its layer order.
import type { ESLint } from 'eslint';

export declare const LAYERS: readonly (readonly string[])[];
export declare function layerFolder(repoPath: string): string | null;
export declare function layerViolation(
  fromFolder: string,
  toFolder: string,
): { messageId: 'upward' | 'sameRank' | 'unplacedTarget'; data: Record<string, string> } | null;
declare const plugin: ESLint.Plugin;
export default plugin;
