// Client-side integrity checks during an interview: leaving full screen,
// hiding the tab, leaving the window and pressing Back are each shown as a
// warning and counted. They run only in this browser, so the server cannot
// enforce them; the page says so. The count is kept per interview in
// sessionStorage so that a reload neither loses nor resets it.
import { useCallback, useEffect, useRef, useState } from 'react';

export type WarningKind = 'fullscreen-exit' | 'tab-hidden' | 'window-blur' | 'back-navigation';

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
  'tab-hidden': 'You switched to another tab or minimised the window.',
  'window-blur': 'You moved to another window.',
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

// Switching tabs fires blur and visibilitychange together; one user action
// should count once.
const coalesceMs = 1500;

export function useIntegrity(sessionId: string, active: boolean) {
  const [record, setRecord] = useState<IntegrityRecord>(() => readIntegrity(sessionId) ?? { count: 0, warnings: [] });
  const [fullscreen, setFullscreen] = useState(() => typeof document !== 'undefined' && !!document.fullscreenElement);
  const last = useRef(0);
  const current = useRef(record);
  // Reloading or leaving the page hides it too; that is not switching away.
  const unloading = useRef(false);

  useEffect(() => {
    const r = readIntegrity(sessionId) ?? { count: 0, warnings: [] };
    current.current = r;
    setRecord(r);
  }, [sessionId]);

  const warn = useCallback(
    (kind: WarningKind) => {
      const now = Date.now();
      if (unloading.current || now - last.current < coalesceMs) return;
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
    const onFullscreen = () => {
      const on = !!document.fullscreenElement;
      setFullscreen(on);
      if (!on) warn('fullscreen-exit');
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') warn('tab-hidden');
    };
    const onBlur = () => warn('window-blur');
    const onLeave = () => {
      unloading.current = true;
    };
    const onShow = () => {
      unloading.current = false;
    };
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
    document.addEventListener('fullscreenchange', onFullscreen);
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('blur', onBlur);
    window.addEventListener('popstate', onPop);
    window.addEventListener('beforeunload', onLeave);
    window.addEventListener('pagehide', onLeave);
    window.addEventListener('pageshow', onShow);
    return () => {
      window.removeEventListener('beforeunload', onLeave);
      window.removeEventListener('pagehide', onLeave);
      window.removeEventListener('pageshow', onShow);
      document.removeEventListener('fullscreenchange', onFullscreen);
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('blur', onBlur);
      window.removeEventListener('popstate', onPop);
    };
  }, [active, warn]);

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
