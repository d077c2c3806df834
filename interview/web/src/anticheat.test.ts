import { describe, expect, it } from 'vitest';
import { watchLeaving, type WarningKind } from './anticheat';

// A window and a document that tests can drive.
function page() {
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible', fullscreenElement: null as Element | null });
  const win = new EventTarget();
  const warnings: WarningKind[] = [];
  return { win, doc, warnings, warn: (k: WarningKind) => warnings.push(k) };
}

describe('what counts as leaving the interview', () => {
  it('never counts the keyboard: a blur while the page stays in view', () => {
    const p = page();
    watchLeaving(p, true, p.warn);
    // Tab past the last control: focus goes to the browser's toolbar.
    p.win.dispatchEvent(new Event('blur'));
    p.doc.dispatchEvent(new Event('focusout'));
    p.win.dispatchEvent(new Event('focus'));
    expect(p.warnings).toEqual([]);
  });

  it('counts the page being hidden', () => {
    const p = page();
    watchLeaving(p, false, p.warn);
    p.win.dispatchEvent(new Event('blur'));
    p.doc.visibilityState = 'hidden';
    p.doc.dispatchEvent(new Event('visibilitychange'));
    expect(p.warnings).toEqual(['tab-hidden']);
  });

  it('counts leaving full screen only when full screen was chosen', () => {
    for (const chosen of [true, false]) {
      const p = page();
      const seen: boolean[] = [];
      watchLeaving(p, chosen, p.warn, (on) => seen.push(on));
      p.doc.fullscreenElement = {} as Element;
      p.doc.dispatchEvent(new Event('fullscreenchange'));
      p.doc.fullscreenElement = null;
      p.doc.dispatchEvent(new Event('fullscreenchange'));
      expect(p.warnings).toEqual(chosen ? ['fullscreen-exit'] : []);
      expect(seen).toEqual([true, false]);
    }
  });

  it('does not count reloading or closing the page, and stops when asked', () => {
    const p = page();
    const stop = watchLeaving(p, true, p.warn);
    p.win.dispatchEvent(new Event('pagehide'));
    p.doc.visibilityState = 'hidden';
    p.doc.dispatchEvent(new Event('visibilitychange'));
    expect(p.warnings).toEqual([]);
    // Back from the cache: watching again.
    p.win.dispatchEvent(new Event('pageshow'));
    p.doc.dispatchEvent(new Event('visibilitychange'));
    expect(p.warnings).toEqual(['tab-hidden']);
    stop();
    p.doc.dispatchEvent(new Event('visibilitychange'));
    expect(p.warnings).toEqual(['tab-hidden']);
  });
});
