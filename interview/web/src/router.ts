// A small history-API router: the app has seven pages, which does not justify
// a routing library in the initial bundle.
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();

function notify() {
  for (const fn of listeners) fn();
}

if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribe(fn: () => void) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search && !opts.replace) return;
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => location.pathname);
}

export type Route =
  | { page: 'setup' }
  | { page: 'interview'; id: string }
  | { page: 'report'; id: string }
  | { page: 'shared'; token: string }
  | { page: 'history' }
  | { page: 'account' }
  | { page: 'signin' }
  | { page: 'notfound' };

export function match(path: string): Route {
  if (path === '/' || path === '/setup') return { page: 'setup' };
  if (path === '/history') return { page: 'history' };
  if (path === '/account') return { page: 'account' };
  if (path === '/signin') return { page: 'signin' };
  const shared = /^\/shared\/([^/]+)\/?$/.exec(path);
  if (shared) {
    try {
      return { page: 'shared', token: decodeURIComponent(shared[1]) };
    } catch {
      return { page: 'notfound' }; // a malformed escape
    }
  }
  const m = /^\/(interview|report)\/([^/]+)\/?$/.exec(path);
  if (m) {
    try {
      return { page: m[1] as 'interview' | 'report', id: decodeURIComponent(m[2]) };
    } catch {
      return { page: 'notfound' }; // a malformed escape such as %E0
    }
  }
  return { page: 'notfound' };
}

/** An onClick for in-app links: client-side navigation, keeping
 * modifier-clicks (new tab) to the browser. */
export function link(to: string) {
  return (e: { defaultPrevented: boolean; button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean; preventDefault(): void }) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}

/** The page a visitor sees at route: signed out, every page but a shared
 * report is the sign-in page. */
export function shownPage(route: Route, signedIn: boolean): Route['page'] {
  if (route.page === 'shared' || signedIn) return route.page === 'signin' && signedIn ? 'setup' : route.page;
  return 'signin';
}

const titles: Record<string, string> = {
  setup: 'New interview',
  interview: 'Interview',
  report: 'Interview report',
  history: 'Interview history',
  shared: 'Shared interview report',
  account: 'Your account',
  signin: 'Sign in',
  notfound: 'Page not found',
};

/** The document title of a page. */
export function titleFor(page: Route['page']): string {
  return `${titles[page] ?? 'Interview practice'} · Interview practice`;
}
