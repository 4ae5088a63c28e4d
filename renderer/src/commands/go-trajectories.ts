import { goView } from './go-view.js';

export const goTrajectories = goView('go-trajectories', 'trajectories', 'Trajectories', 4, 't');
