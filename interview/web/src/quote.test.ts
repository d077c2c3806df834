import { describe, expect, it } from 'vitest';
import { excerpt, shownQuote } from './quote';

const answer = 'I would start with a cache. For example, Redis in front of Postgres cut p95 latency from 900 ms to 120 ms, which mattered for checkout. The trade-off is stale reads.';

describe('a quote as shown', () => {
  it('is a whole sentence as it is', () => {
    expect(shownQuote(answer, 'I would start with a cache.')).toBe('“I would start with a cache.”');
    expect(shownQuote(answer, 'The trade-off is stale reads.')).toBe('“The trade-off is stale reads.”');
  });

  it('gets an ellipsis where the sentence goes on', () => {
    expect(shownQuote(answer, 'For example, Redis in front of Postgres')).toBe('“For example, Redis in front of Postgres…”');
    expect(shownQuote(answer, 'cut p95 latency from 900 ms to 120 ms')).toBe('“…cut p95 latency from 900 ms to 120 ms…”');
    expect(shownQuote(answer, 'which mattered for checkout.')).toBe('“…which mattered for checkout.”');
  });

  it('is widened to whole words where it was cut inside one', () => {
    expect(excerpt(answer, 'edis in front of Postgr')).toEqual({ text: 'Redis in front of Postgres', before: true, after: true });
    expect(shownQuote(answer, 'tart with a cac')).toBe('“…start with a cache.”');
  });

  it('stays words of the answer', () => {
    for (const q of ['edis in front of Postgr', 'cut p95 latency', 'I would start', 'stale reads.']) {
      const { text } = excerpt(answer, q);
      expect(answer).toContain(text);
    }
  });

  it('shows a quote it cannot find, or has no answer for, as it came', () => {
    expect(shownQuote(answer, 'something else entirely')).toBe('“something else entirely”');
    expect(shownQuote(undefined, 'cut p95 latency')).toBe('“cut p95 latency”');
  });

  it('finds a quote whatever its case', () => {
    expect(excerpt(answer, 'redis in front').text).toBe('Redis in front');
  });
});
