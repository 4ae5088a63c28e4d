import { goView } from './go-view.js';

export const goJobs = goView('go-jobs', 'jobs', 'Jobs', 8, 'j');
