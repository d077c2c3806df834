import { describe, expect, it } from 'vitest';
import { Loader } from './load';
import { ApiError } from './api/types';

// A load the test settles by hand, with the signal it was given.
function deferred<T>() {
  const calls: { signal: AbortSignal; resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const load = (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ signal, resolve, reject });
    });
  return { load, calls };
}

describe('Loader', () => {
  it('is loading until the data comes', async () => {
    const d = deferred<string>();
    const l = new Loader(d.load);
    const p = l.start();
    expect(l.current).toEqual({ loading: true, data: undefined, error: null });
    d.calls[0].resolve('report');
    await p;
    expect(l.current).toEqual({ loading: false, data: 'report', error: null });
  });

  it('keeps the failure, and a retry loads again and clears it', async () => {
    const d = deferred<string>();
    const l = new Loader(d.load);
    const seen: boolean[] = [];
    l.subscribe(() => seen.push(l.current.loading));
    const first = l.start();
    const failure = new ApiError(503, 'unavailable', 'The server could not complete the request. Try again.');
    d.calls[0].reject(failure);
    await first;
    expect(l.current).toEqual({ loading: false, data: undefined, error: failure });
    const again = l.start();
    expect(l.current).toEqual({ loading: true, data: undefined, error: null });
    d.calls[1].resolve('history');
    await again;
    expect(l.current).toEqual({ loading: false, data: 'history', error: null });
    expect(seen).toEqual([true, false, true, false]);
  });

  it('abandons a load in flight for a retry: its signal is aborted and its late answer ignored', async () => {
    const d = deferred<string>();
    const l = new Loader(d.load);
    const first = l.start();
    const second = l.start();
    expect(d.calls[0].signal.aborted).toBe(true);
    expect(d.calls[1].signal.aborted).toBe(false);
    d.calls[1].resolve('new');
    await second;
    d.calls[0].resolve('old');
    await first;
    expect(l.current.data).toBe('new');
  });

  it('once disposed (the page unmounted) aborts the load and keeps nothing it returns', async () => {
    const d = deferred<string>();
    const l = new Loader(d.load);
    let notified = 0;
    l.subscribe(() => notified++);
    const p = l.start();
    notified = 0;
    l.dispose();
    expect(d.calls[0].signal.aborted).toBe(true);
    d.calls[0].reject(new DOMException('The operation was aborted.', 'AbortError'));
    await p;
    expect(notified).toBe(0);
    expect(l.current).toEqual({ loading: true, data: undefined, error: null });
    // Nor does it start again.
    await l.start();
    expect(d.calls).toHaveLength(1);
  });

  it('lets the page change what it shows', async () => {
    const d = deferred<string[]>();
    const l = new Loader(d.load);
    const p = l.start();
    d.calls[0].resolve(['a', 'b']);
    await p;
    l.update((list) => (list ?? []).filter((x) => x !== 'a'));
    expect(l.current).toEqual({ loading: false, data: ['b'], error: null });
  });
});
