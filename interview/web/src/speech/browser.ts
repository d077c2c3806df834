// Browser-side adapters for the speech player: playing a WAV blob with an
// Audio element and speaking with speechSynthesis.

/** Voices load asynchronously in some browsers; wait for them, but never
 * longer than timeoutMs, and speak with the default voice after that. */
export function waitForVoices(synth: Pick<SpeechSynthesis, 'getVoices' | 'addEventListener' | 'removeEventListener'>, timeoutMs = 1000): Promise<SpeechSynthesisVoice[]> {
  const now = synth.getVoices();
  if (now.length > 0) return Promise.resolve(now);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      synth.removeEventListener('voiceschanged', done);
      resolve(synth.getVoices());
    };
    const timer = setTimeout(done, timeoutMs);
    synth.addEventListener('voiceschanged', done);
  });
}

export function playBlob(blob: Blob, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(blob);
    const audio = new Audio(url);
    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      audio.pause();
      audio.removeAttribute('src');
      URL.revokeObjectURL(url);
    };
    const onAbort = () => {
      cleanup();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    audio.addEventListener('ended', () => {
      cleanup();
      resolve();
    });
    audio.addEventListener('error', () => {
      cleanup();
      reject(new Error('audio playback failed'));
    });
    audio.play().catch((err) => {
      cleanup();
      reject(err instanceof Error ? err : new Error('audio playback failed'));
    });
  });
}

export async function browserSpeak(text: string, signal: AbortSignal): Promise<void> {
  const synth = typeof window !== 'undefined' ? window.speechSynthesis : undefined;
  if (!synth || typeof SpeechSynthesisUtterance === 'undefined') throw new Error('no speech synthesis');
  const voices = await waitForVoices(synth);
  if (signal.aborted) return;
  const u = new SpeechSynthesisUtterance(text);
  const lang = document.documentElement.lang || 'en';
  const voice = voices.find((v) => v.lang.startsWith(lang) && v.default) ?? voices.find((v) => v.lang.startsWith(lang));
  if (voice) u.voice = voice;
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      synth.cancel();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    u.onend = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    u.onerror = (e) => {
      signal.removeEventListener('abort', onAbort);
      if (e.error === 'interrupted' || e.error === 'canceled') resolve();
      else reject(new Error(`speech synthesis: ${e.error}`));
    };
    synth.speak(u);
  });
}
