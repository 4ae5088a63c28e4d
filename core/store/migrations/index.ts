import type { WritableDB } from '../db.js';
import { up as up0001 } from './0001-initial.js';
import { up as up0002 } from './0002-training-metrics.js';
import { up as up0003 } from './0003-reward-annotations.js';
import { up as up0004 } from './0004-milestones.js';
import { up as up0005 } from './0005-remote-jobs.js';
import { up as up0006 } from './0006-training-rollouts.js';
import { up as up0007 } from './0007-step-usage.js';
import { up as up0008 } from './0008-rollout-scores.js';
import { up as up0009 } from './0009-episode-verdicts.js';
import { up as up0010 } from './0010-outside-agents.js';
import { up as up0011 } from './0011-step-request.js';
import { up as up0012 } from './0012-run-owners.js';

export interface Migration {
  version: number;
  name: string;
  up(db: WritableDB): void;
}

/** Every schema version in order; add a file `NNNN-name.ts` exporting `up(db)` and append it here. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial', up: up0001 },
  { version: 2, name: 'training-metrics', up: up0002 },
  { version: 3, name: 'reward-annotations', up: up0003 },
  { version: 4, name: 'milestones', up: up0004 },
  { version: 5, name: 'remote-jobs', up: up0005 },
  { version: 6, name: 'training-rollouts', up: up0006 },
  { version: 7, name: 'step-usage', up: up0007 },
  { version: 8, name: 'rollout-scores', up: up0008 },
  { version: 9, name: 'episode-verdicts', up: up0009 },
  { version: 10, name: 'outside-agents', up: up0010 },
  { version: 11, name: 'step-request', up: up0011 },
  { version: 12, name: 'run-owners', up: up0012 },
];
