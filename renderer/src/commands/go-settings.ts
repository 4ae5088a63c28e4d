import { goView } from './go-view.js';

export const goSettings = goView('go-settings', 'settings', 'Settings', 5, 's');
