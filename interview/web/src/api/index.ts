// The one client of the API the pages share. A 401 on a call that needs a
// session means the session ended (expired, revoked, signed out
// elsewhere): the client says so here, once, and the app listens
// (onSessionLost), so no page checks for a 401.
import { createApi } from './client';

const listeners = new Set<() => void>();

export const api = createApi(undefined, () => {
  for (const fn of listeners) fn();
});

/** Calls fn whenever a call finds the session gone; returns the unsubscribe. */
export function onSessionLost(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
