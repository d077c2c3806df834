// Loading what a page shows: the one way every page does it. A Loader runs
// one load at a time with its own AbortSignal, keeps loading/data/error,
// retries on demand, and once disposed aborts the load in flight and
// ignores whatever comes back. useLoad is its React hook.
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';

export interface LoadState<T> {
  loading: boolean;
  data: T | undefined;
  /** The last load's failure (an ApiError for a failed call); null after a success. */
  error: unknown;
}

export class Loader<T> {
  private state: LoadState<T> = { loading: false, data: undefined, error: null };
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | null = null;
  private disposed = false;
  private readonly load: (signal: AbortSignal) => Promise<T>;

  constructor(load: (signal: AbortSignal) => Promise<T>) {
    this.load = load;
  }

  get current(): LoadState<T> {
    return this.state;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private set(next: LoadState<T>) {
    this.state = next;
    for (const fn of this.listeners) fn();
  }

  /** Starts a load (the first, or a retry), abandoning one in flight. */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.set({ loading: true, data: this.state.data, error: null });
    return this.load(controller.signal).then(
      (data) => {
        if (this.controller === controller && !this.disposed) this.set({ loading: false, data, error: null });
      },
      (error: unknown) => {
        if (this.controller === controller && !this.disposed) this.set({ loading: false, data: this.state.data, error });
      },
    );
  }

  /** Replaces the data shown (a page's own change, such as an item removed). */
  update(fn: (data: T | undefined) => T) {
    if (!this.disposed) this.set({ ...this.state, data: fn(this.state.data) });
  }

  /** Aborts the load in flight; nothing it returns is kept. */
  dispose() {
    this.disposed = true;
    this.controller?.abort();
  }
}

export interface Load<T> extends LoadState<T> {
  retry: () => void;
  update: (fn: (data: T | undefined) => T) => void;
}

/** useLoad loads with load on mount and whenever deps change, aborting the
 * load of the previous deps and on unmount. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Load<T> {
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const make = useCallback(() => new Loader(load), deps);
  const [loader, setLoader] = useState(make);
  useEffect(() => {
    const l = make();
    setLoader(l);
    void l.start();
    return () => l.dispose();
  }, [make]);
  const state = useSyncExternalStore(
    useCallback((fn: () => void) => loader.subscribe(fn), [loader]),
    () => loader.current,
  );
  return {
    ...state,
    // Until the first load of new deps starts, they are loading.
    loading: state.loading || (state.data === undefined && state.error === null),
    retry: useCallback(() => void loader.start(), [loader]),
    update: useCallback((fn: (data: T | undefined) => T) => loader.update(fn), [loader]),
  };
}
