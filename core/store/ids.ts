/**
 * Branded ids: a run's local row id cannot be passed where an episode's is expected. Local ids are
 * per store; `uid`s (UUIDs) are global and survive export and import.
 */
export type RunId = number & { readonly __brand: 'RunId' };
export type EpisodeId = number & { readonly __brand: 'EpisodeId' };

export const asRunId = (n: number | bigint): RunId => Number(n) as RunId;
export const asEpisodeId = (n: number | bigint): EpisodeId => Number(n) as EpisodeId;
