import { goView } from './go-view.js';

export const goLive = goView('go-live', 'live', 'Live', 2, 'l');
