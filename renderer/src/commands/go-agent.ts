import { goView } from './go-view.js';

export const goAgent = goView('go-agent', 'agent', 'Agent', 3, 'a');
