import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/client.js';
import { createAppStore, setAppStore } from './store/index.js';
import { App } from './App.js';
import { installRouting } from './routes.js';
import './styles.css';

let setConnection: ((s: 'connecting' | 'open' | 'closed') => void) | null = null;
let early: 'connecting' | 'open' | 'closed' = 'connecting';
// The store is created around the API, so the API's callbacks reach it once it exists.
let reportSubscriptionError: ((member: string, e: Error) => void) | null = null;
const api = connectWorkbench(
  (s) => (setConnection ? setConnection(s) : (early = s)),
  (member, e) => reportSubscriptionError?.(member, e),
);
const store = createAppStore(api);
reportSubscriptionError = (member, e) => void store.getState().attempt(`Watch ${member.replace(/^on/, '').toLowerCase()}`, () => Promise.reject(e));
setAppStore(store);
setConnection = store.getState().setConnection;
setConnection(early);
// The URL hash names the view / episode / run shown: a reload lands there again.
installRouting(store);

createRoot(document.getElementById('root')!).render(<App />);
