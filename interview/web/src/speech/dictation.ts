// Dictation with the browser's own speech recognition (the Web Speech API,
// SpeechRecognition or webkitSpeechRecognition), offered when the server
// has no speech-to-text. The browser, not this service, hears the audio:
// Chrome sends it to Google, Safari to Apple, which the page says.

/** The part of a SpeechRecognition this module uses. */
export interface Recognizer {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onresult: ((e: RecognitionResultEvent) => void) | null;
  onerror: ((e: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
}

export interface RecognitionResultEvent {
  resultIndex: number;
  results: ArrayLike<{ isFinal: boolean; 0: { transcript: string } }>;
}

export type RecognizerConstructor = new () => Recognizer;

/** The browser's recognizer, or null where it has none. */
export function recognizerConstructor(win: unknown = typeof window !== 'undefined' ? window : undefined): RecognizerConstructor | null {
  if (!win || typeof win !== 'object') return null;
  const w = win as { SpeechRecognition?: unknown; webkitSpeechRecognition?: unknown };
  const ctor = w.SpeechRecognition ?? w.webkitSpeechRecognition;
  return typeof ctor === 'function' ? (ctor as RecognizerConstructor) : null;
}

export interface DictationHandlers {
  /** A final piece of text, in order. */
  onText(text: string): void;
  /** The session ended (stopped, silence or error); seconds is how long it
   * listened, 0 when it heard nothing (a blocked microphone, silence): an
   * answer is only as spoken as the text dictation gave it. */
  onEnd(seconds: number): void;
  onError(message: string): void;
}

export interface Dictation {
  stop(): void;
  cancel(): void;
}

const errorText: Record<string, string> = {
  'not-allowed': 'The microphone is blocked for this page. Allow it in the browser, or type your answer.',
  'service-not-allowed': "The browser's speech recognition is turned off. Type your answer instead.",
  'audio-capture': 'No microphone was found. Type your answer instead.',
  network: "The browser's speech recognition service could not be reached. Type your answer instead.",
};

/** Starts dictating with ctor; now is injectable for tests. */
export function startDictation(ctor: RecognizerConstructor, h: DictationHandlers, lang = 'en-US', now: () => number = () => Date.now()): Dictation {
  const rec = new ctor();
  rec.lang = lang;
  rec.continuous = true;
  rec.interimResults = false;
  const started = now();
  let ended = false;
  let heard = false;
  rec.onresult = (e) => {
    for (let i = e.resultIndex; i < e.results.length; i++) {
      const r = e.results[i];
      const text = r[0]?.transcript?.trim();
      if (r.isFinal && text) {
        heard = true;
        h.onText(text);
      }
    }
  };
  rec.onerror = (e) => {
    // "no-speech" and "aborted" end a session quietly.
    if (e.error !== 'no-speech' && e.error !== 'aborted') h.onError(errorText[e.error] ?? 'Dictation stopped with an error. Type your answer instead.');
  };
  rec.onend = () => {
    if (ended) return;
    ended = true;
    h.onEnd(heard ? (now() - started) / 1000 : 0);
  };
  rec.start();
  return {
    stop: () => rec.stop(),
    cancel: () => {
      ended = true;
      rec.abort();
    },
  };
}
