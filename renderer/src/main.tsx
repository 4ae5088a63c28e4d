import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/client.js';
import { createAppStore, setAppStore } from './store/index.js';
import { App } from './App.js';
import './styles.css';

let setConnection: ((s: 'connecting' | 'open' | 'closed') => void) | null = null;
let early: 'connecting' | 'open' | 'closed' = 'connecting';
const api = connectWorkbench((s) => (setConnection ? setConnection(s) : (early = s)));
const store = createAppStore(api);
setAppStore(store);
setConnection = store.getState().setConnection;
setConnection(early);

createRoot(document.getElementById('root')!).render(<App />);
