import { goView } from './go-view.js';

export const goAdaptation = goView('go-adaptation', 'adaptation', 'Adaptation', 7, 'p');
