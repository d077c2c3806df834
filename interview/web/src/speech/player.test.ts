import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/types';
import { RETRY_AFTER_429_MS, SpeechPlayer, type SpeechBackends } from './player';
import { waitForVoices } from './browser';

// A scripted world: the server answers each chunk request with the next
// scripted outcome (a status, or 'ok'), playback takes 500 ms of fake time,
// and the browser voice records what it was asked to say.
function world(script: (number | 'ok' | 'network' | 'badaudio')[], serverEnabled = true) {
  const log: string[] = [];
  const served: string[] = [];
  let calls = 0;
  const b: SpeechBackends = {
    serverEnabled,
    now: () => Date.now(),
    async fetchChunk(text) {
      const step = script[calls++] ?? 'ok';
      served.push(text);
      if (step === 'network') throw new ApiError(0, 'network', 'offline');
      if (typeof step === 'number') throw new ApiError(step, `http_${step}`, 'no');
      return new Blob([step === 'badaudio' ? 'junk' : 'RIFF'], { type: 'audio/wav' });
    },
    async playBlob(blob, signal) {
      if ((await blob.text()) === 'junk') throw new Error('decode error');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 500);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
    },
    async browserSpeak(text) {
      log.push(text);
    },
  };
  return { b, log, served, calls: () => calls };
}

const text = 'First sentence. Second sentence. Third sentence.';

describe('SpeechPlayer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2025-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('plays every chunk from the server when it works', async () => {
    const w = world(['ok', 'ok', 'ok']);
    const p = new SpeechPlayer(w.b);
    const done = p.speak(text);
    await vi.runAllTimersAsync();
    expect(await done).toEqual({ outcome: 'done', serverChunks: 3, browserChunks: 0 });
    expect(w.served).toEqual(['First sentence.', 'Second sentence.', 'Third sentence.']);
    expect(w.log).toEqual([]);
    expect(p.serverVoice()).toEqual({ kind: 'on' });
  });

  it('hands the rest to the browser after a 429 and retries the server 2 minutes later', async () => {
    const w = world(['ok', 429]);
    const p = new SpeechPlayer(w.b);
    const first = p.speak(text);
    await vi.runAllTimersAsync();
    expect(await first).toEqual({ outcome: 'done', serverChunks: 1, browserChunks: 2 });
    expect(w.log).toEqual(['Second sentence.', 'Third sentence.']);
    expect(p.serverVoice()).toEqual({ kind: 'cooldown', until: Date.now() + RETRY_AFTER_429_MS });

    // Within the cooldown the server is not asked at all.
    const callsBefore = w.calls();
    vi.advanceTimersByTime(RETRY_AFTER_429_MS - 10_000);
    const second = p.speak('Within cooldown.');
    await vi.runAllTimersAsync();
    expect((await second).browserChunks).toBe(1);
    expect(w.calls()).toBe(callsBefore);

    // After it, the server voice is back.
    vi.advanceTimersByTime(20_000);
    expect(p.serverVoice()).toEqual({ kind: 'on' });
    const third = p.speak('After cooldown.');
    await vi.runAllTimersAsync();
    expect(await third).toEqual({ outcome: 'done', serverChunks: 1, browserChunks: 0 });
    expect(w.served.at(-1)).toBe('After cooldown.');
  });

  const permanent: { name: string; step: number | 'network' | 'badaudio'; reason: string }[] = [
    { name: '503 terms not accepted', step: 503, reason: 'server answered 503' },
    { name: '501 disabled', step: 501, reason: 'server answered 501' },
    { name: 'network error', step: 'network', reason: 'network error' },
    { name: 'playback error', step: 'badaudio', reason: 'playback error' },
  ];
  for (const c of permanent) {
    it(`turns the server voice off for the session after a ${c.name}`, async () => {
      const w = world([c.step]);
      const p = new SpeechPlayer(w.b);
      const first = p.speak(text);
      await vi.runAllTimersAsync();
      expect(await first).toEqual({ outcome: 'done', serverChunks: 0, browserChunks: 3 });
      expect(w.log).toEqual(['First sentence.', 'Second sentence.', 'Third sentence.']);
      expect(p.serverVoice()).toEqual({ kind: 'off', reason: c.reason });

      // Long after, still off: the server is never asked again.
      const calls = w.calls();
      vi.advanceTimersByTime(60 * 60 * 1000);
      const second = p.speak('Later.');
      await vi.runAllTimersAsync();
      expect((await second).browserChunks).toBe(1);
      expect(w.calls()).toBe(calls);
    });
  }

  it('uses only the browser when the server has speech disabled', async () => {
    const w = world([], false);
    const p = new SpeechPlayer(w.b);
    const done = p.speak('One. Two.');
    await vi.runAllTimersAsync();
    expect(await done).toEqual({ outcome: 'done', serverChunks: 0, browserChunks: 2 });
    expect(w.calls()).toBe(0);
  });

  it('stops mid-way and a new speak replaces the old one', async () => {
    const w = world(['ok', 'ok', 'ok', 'ok']);
    const p = new SpeechPlayer(w.b);
    const first = p.speak(text);
    await vi.advanceTimersByTimeAsync(600); // first chunk played, second playing
    const second = p.speak('Replacement.');
    await vi.runAllTimersAsync();
    expect((await first).outcome).toBe('stopped');
    expect(await second).toEqual({ outcome: 'done', serverChunks: 1, browserChunks: 0 });
    expect(p.serverVoice()).toEqual({ kind: 'on' });
    expect(p.speaking).toBe(false);
  });

  it('reports unavailable when the browser has no voice either', async () => {
    const w = world([503]);
    w.b.browserSpeak = async () => {
      throw new Error('no speech synthesis');
    };
    const p = new SpeechPlayer(w.b);
    const done = p.speak(text);
    await vi.runAllTimersAsync();
    expect((await done).outcome).toBe('unavailable');
  });

  it('tells listeners about state changes', async () => {
    const w = world([429]);
    const p = new SpeechPlayer(w.b);
    const seen: string[] = [];
    p.onChange((s) => seen.push(s.kind));
    const done = p.speak('Hello.');
    await vi.runAllTimersAsync();
    await done;
    vi.advanceTimersByTime(RETRY_AFTER_429_MS);
    p.serverVoice();
    expect(seen).toEqual(['cooldown', 'on']);
  });
});

describe('waitForVoices', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function fakeSynth(initial: number) {
    const target = new EventTarget();
    let voices = Array.from({ length: initial }, () => ({ lang: 'en-US' }) as SpeechSynthesisVoice);
    return Object.assign(target, {
      getVoices: () => voices,
      load(n: number) {
        voices = Array.from({ length: n }, () => ({ lang: 'en-US' }) as SpeechSynthesisVoice);
        target.dispatchEvent(new Event('voiceschanged'));
      },
    });
  }

  it('returns at once when voices are loaded', async () => {
    const s = fakeSynth(2);
    expect(await waitForVoices(s)).toHaveLength(2);
  });

  it('resolves when voices arrive', async () => {
    const s = fakeSynth(0);
    let got: SpeechSynthesisVoice[] | null = null;
    void waitForVoices(s).then((v) => (got = v));
    await vi.advanceTimersByTimeAsync(300);
    expect(got).toBeNull();
    s.load(3);
    await vi.advanceTimersByTimeAsync(0);
    expect(got).toHaveLength(3);
  });

  it('gives up after 1 second', async () => {
    const s = fakeSynth(0);
    let got: SpeechSynthesisVoice[] | null = null;
    void waitForVoices(s).then((v) => (got = v));
    await vi.advanceTimersByTimeAsync(999);
    expect(got).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(got).toEqual([]);
  });
});
