import type { JobEvent } from '../remote-jobs/protocol.js';
import { RemoteJobs } from '../remote-jobs/remote.js';
import { dataDir } from '../util/data-dir.js';
import { openDb } from './open-db.js';

/** Opens the store and the remote-jobs service for one command; closes the store after. */
export async function withRemoteJobs<T>(dbFlag: string | undefined, fn: (jobs: RemoteJobs) => Promise<T>): Promise<T> {
  const { db } = openDb(dbFlag);
  try {
    return await fn(new RemoteJobs({ db, dataDir: dataDir() }));
  } finally {
    db.close();
  }
}

export function eventLine(ev: JobEvent): string {
  const t = new Date(ev.time).toISOString().slice(11, 19);
  switch (ev.type) {
    case 'log':
      return `${t} [${ev.level}] ${ev.message}`;
    case 'metric':
      return `${t} step ${ev.step}: ${Object.entries(ev.metrics).map(([k, v]) => `${k}=${Number(v.toPrecision(5))}`).join(' ')}`;
    case 'status':
      return `${t} status ${ev.status}${ev.error ? `: ${ev.error.code}: ${ev.error.message}` : ''}`;
  }
}
