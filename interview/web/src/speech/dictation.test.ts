import { describe, expect, it } from 'vitest';
import { recognizerConstructor, startDictation, type RecognitionResultEvent, type Recognizer } from './dictation';

class FakeRecognizer implements Recognizer {
  static last: FakeRecognizer | null = null;
  lang = '';
  continuous = false;
  interimResults = true;
  onresult: ((e: RecognitionResultEvent) => void) | null = null;
  onerror: ((e: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  started = false;
  constructor() {
    FakeRecognizer.last = this;
  }
  start() {
    this.started = true;
  }
  stop() {
    this.onend?.();
  }
  abort() {
    this.onend?.();
  }
  emit(...parts: [string, boolean][]) {
    this.onresult?.({ resultIndex: 0, results: parts.map(([t, isFinal]) => ({ isFinal, 0: { transcript: t } })) });
  }
}

describe('recognizerConstructor', () => {
  it('finds the standard or the webkit recognizer, or none', () => {
    expect(recognizerConstructor({ SpeechRecognition: FakeRecognizer })).toBe(FakeRecognizer);
    expect(recognizerConstructor({ webkitSpeechRecognition: FakeRecognizer })).toBe(FakeRecognizer);
    expect(recognizerConstructor({})).toBeNull();
    expect(recognizerConstructor(undefined)).toBeNull();
  });
});

describe('startDictation', () => {
  it('passes final text on and times the session', () => {
    let t = 1000;
    const texts: string[] = [];
    let seconds = -1;
    const d = startDictation(FakeRecognizer, { onText: (x) => texts.push(x), onEnd: (s) => (seconds = s), onError: () => {} }, 'en-GB', () => t);
    const rec = FakeRecognizer.last!;
    expect(rec.started && rec.continuous && !rec.interimResults && rec.lang === 'en-GB').toBe(true);
    rec.emit([' A token bucket per key ', true], ['interim guess', false]);
    t += 42_500;
    d.stop();
    expect(texts).toEqual(['A token bucket per key']);
    expect(seconds).toBe(42.5);
  });

  it('says why it stopped, except for silence', () => {
    const errors: string[] = [];
    startDictation(FakeRecognizer, { onText: () => {}, onEnd: () => {}, onError: (m) => errors.push(m) });
    FakeRecognizer.last!.onerror?.({ error: 'no-speech' });
    FakeRecognizer.last!.onerror?.({ error: 'not-allowed' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/microphone is blocked/);
  });

  it('a blocked microphone hears nothing: the session ends with no seconds', () => {
    let t = 0;
    let seconds = -1;
    const errors: string[] = [];
    const d = startDictation(FakeRecognizer, { onText: () => {}, onEnd: (s) => (seconds = s), onError: (m) => errors.push(m) }, 'en', () => t);
    FakeRecognizer.last!.onerror?.({ error: 'not-allowed' });
    t += 1200;
    d.stop();
    expect(errors[0]).toMatch(/microphone is blocked/);
    expect(seconds).toBe(0);
  });

  it('reports the end once, and not after cancel', () => {
    let ends = 0;
    const d = startDictation(FakeRecognizer, { onText: () => {}, onEnd: () => ends++, onError: () => {} });
    d.cancel();
    FakeRecognizer.last!.onend?.();
    expect(ends).toBe(0);
  });
});
