import { goView } from './go-view.js';

export const goDevices = goView('go-devices', 'devices', 'Devices', 1, 'd');
