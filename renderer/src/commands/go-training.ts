import { goView } from './go-view.js';

export const goTraining = goView('go-training', 'training', 'Training', 6, 'r');
