import { register } from './types.js';

/** Settings → Endpoints: opens the form on a new VLM endpoint profile (one form at a time). */
export const endpointAdd = register({
  name: 'endpoint-add',
  label: 'Add endpoint',
  predicate: (s) => s.view === 'settings' && s.endpointDraft === null,
  perform: (store) => store.getState().editEndpoint(null),
});
