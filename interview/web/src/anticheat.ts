// Client-side integrity checks during an interview. What counts is really
// leaving it: the page hidden (another tab or app brought to the front, the
// window minimised), full screen left when the candidate chose full screen,
// and Back. Using the keyboard on the page never counts: Tab past the last
// control moves focus to the browser's own toolbar, which blurs the window
// while the page stays in view, so a blur alone is not leaving. They run
// only in this browser, so the server cannot enforce them; the page says
// so. The count is kept per interview in sessionStorage so that a reload
// neither loses nor resets it.
import { useCallback, useEffect, useRef, useState } from 'react';

export type WarningKind = 'fullscreen-exit' | 'tab-hidden' | 'back-navigation';

export interface IntegrityWarning {
  kind: WarningKind;
  at: string;
}

export interface IntegrityRecord {
  count: number;
  warnings: IntegrityWarning[];
}

export const warningText: Record<WarningKind, string> = {
  'fullscreen-exit': 'You left full screen.',
  'tab-hidden': 'You switched to another tab or app, or minimised the window.',
  'back-navigation': 'You tried to go back; the interview stays on this page.',
};

const key = (id: string) => `integrity:${id}`;

export function readIntegrity(id: string): IntegrityRecord | null {
  try {
    const raw = sessionStorage.getItem(key(id));
    if (!raw) return null;
    const v = JSON.parse(raw);
    if (typeof v?.count === 'number' && Array.isArray(v.warnings)) return v as IntegrityRecord;
  } catch {
    // Storage blocked or corrupt: behave as if nothing was recorded.
  }
  return null;
}

function writeIntegrity(id: string, r: IntegrityRecord) {
  try {
    sessionStorage.setItem(key(id), JSON.stringify(r));
  } catch {
    // Storage blocked: the count still shows for this page view.
  }
}

// The candidate's choice of full screen, per interview and as the setup
// form's next default. Kept in localStorage: an interview resumed in
// another tab of the same browser keeps the choice it was started with.
const noFullscreenKey = (id: string) => `noFullscreen:${id}`;
const fullscreenDefaultKey = 'fullscreenDefault';

/** Records whether interview id is taken in full screen. */
export function rememberFullscreen(id: string, chosen: boolean): void {
  try {
    if (chosen) localStorage.removeItem(noFullscreenKey(id));
    else localStorage.setItem(noFullscreenKey(id), '1');
    localStorage.setItem(fullscreenDefaultKey, chosen ? 'on' : 'off');
  } catch {
    // Storage blocked: the interview page asks for full screen as usual.
  }
}

/** Whether interview id was started with full screen chosen (yes unless
 * the candidate unticked it in this browser). */
export function fullscreenChosen(id: string): boolean {
  try {
    return localStorage.getItem(noFullscreenKey(id)) !== '1';
  } catch {
    return true;
  }
}

/** Forgets interview id's choice once it is finished. */
export function forgetFullscreen(id: string): void {
  try {
    localStorage.removeItem(noFullscreenKey(id));
  } catch {
    // Nothing to forget.
  }
}

/** The setup form's default: the candidate's last choice, else full screen. */
export function fullscreenByDefault(): boolean {
  try {
    return localStorage.getItem(fullscreenDefaultKey) !== 'off';
  } catch {
    return true;
  }
}

/** What watchLeaving listens on: the window and its document, or stand-ins
 * in tests. */
export interface Watched {
  win: EventTarget;
  doc: EventTarget & { readonly visibilityState: string; readonly fullscreenElement: Element | null };
}

/**
 * watchLeaving calls warn each time the candidate really leaves the page:
 * it is hidden, or, when full screen was chosen, full screen is left. A
 * window blur is not leaving (keyboard focus on the browser's toolbar
 * blurs it), and neither is reloading or closing the page, which hides it
 * too. onFullscreen hears every change of full screen. It returns the
 * function that stops watching.
 */
export function watchLeaving(w: Watched, chosen: boolean, warn: (kind: WarningKind) => void, onFullscreen: (on: boolean) => void = () => {}): () => void {
  let unloading = false;
  const onVisibility = () => {
    if (w.doc.visibilityState === 'hidden' && !unloading) warn('tab-hidden');
  };
  const onFullscreenChange = () => {
    const on = !!w.doc.fullscreenElement;
    onFullscreen(on);
    if (!on && chosen && !unloading) warn('fullscreen-exit');
  };
  const onLeave = () => {
    unloading = true;
  };
  const onShow = () => {
    unloading = false;
  };
  w.doc.addEventListener('visibilitychange', onVisibility);
  w.doc.addEventListener('fullscreenchange', onFullscreenChange);
  w.win.addEventListener('beforeunload', onLeave);
  w.win.addEventListener('pagehide', onLeave);
  w.win.addEventListener('pageshow', onShow);
  return () => {
    w.doc.removeEventListener('visibilitychange', onVisibility);
    w.doc.removeEventListener('fullscreenchange', onFullscreenChange);
    w.win.removeEventListener('beforeunload', onLeave);
    w.win.removeEventListener('pagehide', onLeave);
    w.win.removeEventListener('pageshow', onShow);
  };
}

// Switching apps in full screen hides the page and leaves full screen
// together; one user action should count once.
const coalesceMs = 1500;

/** The integrity checks of interview sessionId while active; chosen says
 * whether the candidate chose full screen. */
export function useIntegrity(sessionId: string, active: boolean, chosen: boolean) {
  const [record, setRecord] = useState<IntegrityRecord>(() => readIntegrity(sessionId) ?? { count: 0, warnings: [] });
  const [fullscreen, setFullscreen] = useState(() => typeof document !== 'undefined' && !!document.fullscreenElement);
  const last = useRef(0);
  const current = useRef(record);

  useEffect(() => {
    const r = readIntegrity(sessionId) ?? { count: 0, warnings: [] };
    current.current = r;
    setRecord(r);
  }, [sessionId]);

  const warn = useCallback(
    (kind: WarningKind) => {
      const now = Date.now();
      if (now - last.current < coalesceMs) return;
      last.current = now;
      const next = { count: current.current.count + 1, warnings: [...current.current.warnings, { kind, at: new Date(now).toISOString() }] };
      current.current = next;
      writeIntegrity(sessionId, next);
      setRecord(next);
    },
    [sessionId],
  );

  useEffect(() => {
    if (!active) return;
    const stop = watchLeaving({ win: window, doc: document }, chosen, warn, setFullscreen);
    // A duplicate history entry absorbs Back: the URL stays on the
    // interview and the attempt is counted.
    const here = location.pathname;
    history.pushState({ integrityGuard: true }, '', here);
    const onPop = () => {
      if (location.pathname === here) {
        warn('back-navigation');
        history.pushState({ integrityGuard: true }, '', here);
      }
    };
    window.addEventListener('popstate', onPop);
    return () => {
      stop();
      window.removeEventListener('popstate', onPop);
    };
  }, [active, chosen, warn]);

  const enterFullscreen = useCallback(() => {
    requestFullscreen();
  }, []);

  return { record, fullscreen, enterFullscreen };
}

/** Asks for full screen; browsers may refuse (no user gesture, iframe,
 * iPhone Safari), which is not an error for the interview. */
export function requestFullscreen(): void {
  const el = document.documentElement;
  if (!document.fullscreenElement && el.requestFullscreen) {
    el.requestFullscreen().catch(() => {});
  }
}

export function exitFullscreen(): void {
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
}
