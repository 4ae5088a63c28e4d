/** Types of esbuild-path.mjs (JavaScript: the host entry loads it before tsx is registered). */
export declare function unpackedEsbuild(
  fromUrl: string,
  o?: { env?: Record<string, string | undefined>; platform?: string; arch?: string; resolve?: (id: string) => string },
): string | null;
