// Speech playback with a fallback. Text is cut into sentence chunks; each
// chunk is fetched from the server as WAV and played in turn. On the first
// failure (429, 503, 501, a network error or a playback error) the remaining
// chunks, the failed one included, go to the browser's speechSynthesis.
// After a 429 the server voice is tried again RETRY_AFTER_429_MS later; after
// any other failure it stays off until the page is reloaded, because those
// failures (feature off, terms not accepted, broken audio) do not heal.

import { ApiError } from '../api/types';
import { chunkText } from './chunk';

export const RETRY_AFTER_429_MS = 2 * 60 * 1000;

export type ServerVoice =
  | { kind: 'on' }
  | { kind: 'cooldown'; until: number }
  | { kind: 'off'; reason: string };

export interface SpeechBackends {
  /** Whether the server offers speech at all (GET /api/config voice.speech). */
  serverEnabled: boolean;
  fetchChunk(text: string, signal: AbortSignal): Promise<Blob>;
  /** Plays one WAV; rejects on a playback error; resolves early on abort. */
  playBlob(blob: Blob, signal: AbortSignal): Promise<void>;
  /** Speaks with the browser's voice; rejects when there is none. */
  browserSpeak(text: string, signal: AbortSignal): Promise<void>;
  now(): number;
}

/** How one speak() call ended. */
export type SpeakOutcome = 'done' | 'stopped' | 'unavailable';

export interface SpeakReport {
  outcome: SpeakOutcome;
  serverChunks: number;
  browserChunks: number;
}

const silence = () => {};

export class SpeechPlayer {
  private server: ServerVoice;
  private current: AbortController | null = null;
  private readonly listeners = new Set<(s: ServerVoice) => void>();

  constructor(private readonly b: SpeechBackends) {
    this.server = b.serverEnabled ? { kind: 'on' } : { kind: 'off', reason: 'disabled by the server' };
  }

  /** The server voice's state, after expiring a finished cooldown. */
  serverVoice(): ServerVoice {
    if (this.server.kind === 'cooldown' && this.b.now() >= this.server.until) {
      this.set({ kind: 'on' });
    }
    return this.server;
  }

  onChange(fn: (s: ServerVoice) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get speaking(): boolean {
    return this.current !== null;
  }

  /** Stops whatever is playing. */
  stop(): void {
    this.current?.abort();
    this.current = null;
  }

  /** Speaks text, replacing anything already playing. */
  async speak(text: string): Promise<SpeakReport> {
    this.stop();
    const ctrl = new AbortController();
    this.current = ctrl;
    const { signal } = ctrl;
    const report: SpeakReport = { outcome: 'done', serverChunks: 0, browserChunks: 0 };
    const chunks = chunkText(text);
    let useServer = this.serverVoice().kind === 'on';
    // The next chunk is fetched while the current one plays, so that the
    // gap between sentences is playback only, not a round trip.
    let next: Promise<Blob> | null = useServer && chunks.length > 0 ? this.prefetch(chunks[0], signal) : null;
    try {
      for (let i = 0; i < chunks.length; i++) {
        if (signal.aborted) return { ...report, outcome: 'stopped' };
        if (useServer && next) {
          const pending = next;
          next = i + 1 < chunks.length ? this.prefetch(chunks[i + 1], signal) : null;
          try {
            await this.b.playBlob(await pending, signal);
            if (signal.aborted) return { ...report, outcome: 'stopped' };
            report.serverChunks++;
            continue;
          } catch (err) {
            if (signal.aborted) return { ...report, outcome: 'stopped' };
            this.fail(err);
            useServer = false;
            next = null;
          }
        }
        try {
          await this.b.browserSpeak(chunks[i], signal);
        } catch {
          if (signal.aborted) return { ...report, outcome: 'stopped' };
          return { ...report, outcome: 'unavailable' };
        }
        if (signal.aborted) return { ...report, outcome: 'stopped' };
        report.browserChunks++;
      }
      return report;
    } finally {
      if (this.current === ctrl) this.current = null;
    }
  }

  private prefetch(text: string, signal: AbortSignal): Promise<Blob> {
    const p = this.b.fetchChunk(text, signal);
    // A prefetch that fails after the fallback began is never awaited.
    p.catch(silence);
    return p;
  }

  private fail(err: unknown): void {
    if (err instanceof ApiError && err.status === 429) {
      this.set({ kind: 'cooldown', until: this.b.now() + RETRY_AFTER_429_MS });
      return;
    }
    const reason =
      err instanceof ApiError
        ? err.status === 0
          ? 'network error'
          : `server answered ${err.status}`
        : 'playback error';
    this.set({ kind: 'off', reason });
  }

  private set(s: ServerVoice): void {
    this.server = s;
    for (const fn of this.listeners) fn(s);
  }
}
