// One speech player per page load, so that the fallback state (a 429
// cooldown, or the server voice switched off) lasts for the session.
import { useEffect, useState } from 'react';
import { SpeechPlayer, type ServerVoice } from './player';
import { browserSpeak, playBlob } from './browser';
import type { Api } from '../api/client';

let shared: SpeechPlayer | null = null;

export function speechPlayer(api: Api, serverEnabled: boolean): SpeechPlayer {
  if (!shared) {
    shared = new SpeechPlayer({
      serverEnabled,
      fetchChunk: (text, signal) => api.speech(text, signal),
      playBlob,
      browserSpeak,
      now: () => Date.now(),
    });
  }
  return shared;
}

export function canSpeak(serverEnabled: boolean): boolean {
  return serverEnabled || (typeof window !== 'undefined' && 'speechSynthesis' in window);
}

export function useServerVoice(p: SpeechPlayer): ServerVoice {
  const [s, setS] = useState(() => p.serverVoice());
  useEffect(() => p.onChange(setS), [p]);
  return s;
}
