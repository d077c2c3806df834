import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Evaluation } from '../api/types';
import { against, duration, EvaluationView, lengthBand } from './EvaluationView';

const base: Evaluation = {
  scorable: true,
  offTopic: false,
  score: 64,
  technicalAccuracy: 70,
  communication: 50,
  feedback: 'Covered 2 of 4 key points.',
  strengths: ['Covered: Client sends an idempotency key', 'Discussed trade-offs'],
  improvements: ['Cover: Retries after timeouts are the reason'],
  evidence: [{ kind: 'strength', point: 'Covered: Client sends an idempotency key', quote: 'the client sends a unique key with each payment' }],
  star: null,
  delivery: null,
};

const render = (e: Evaluation) => renderToStaticMarkup(<EvaluationView evaluation={e} />);

describe('EvaluationView', () => {
  it('shows each quote under the point it supports', () => {
    const html = render(base);
    expect(html).toContain('64/100');
    const item = html.slice(html.indexOf('Covered: Client sends'), html.indexOf('Discussed trade-offs'));
    expect(item).toContain('“the client sends a unique key with each payment”');
    expect(html.match(/<blockquote/g)).toHaveLength(1);
  });

  it('says "not enough to score" without scores or strengths', () => {
    const html = render({ ...base, scorable: false, score: 0, strengths: [], evidence: [], feedback: 'Not enough to score: the answer does not address the question.' });
    expect(html).toContain('Not enough to score.');
    expect(html).not.toContain('/100');
    expect(html).not.toContain('What went well');
  });

  it('says an off-topic answer is off the question, with its score', () => {
    const html = render({ ...base, offTopic: true, score: 20, strengths: [], evidence: [] });
    expect(html).toContain('Off the question.');
    expect(html).toContain('counts in your averages');
    expect(html).toContain('20/100');
    expect(render(base)).not.toContain('Off the question');
  });

  it('shows STAR parts told and missing', () => {
    const html = render({ ...base, star: { situation: true, task: false, action: true, result: false } });
    expect(html).toContain('Situation: told');
    expect(html).toContain('Task: missing');
    expect(html).toContain('Result: missing');
  });

  it('shows delivery against the target bands, with the note on fillers', () => {
    const html = render({ ...base, delivery: { seconds: 20, wordsPerMinute: 185, words: 62, fillers: [{ word: 'um', count: 3 }] } });
    expect(html).toContain('20 s');
    expect(html).toContain('shorter than the target of 30 s to 2 min 00 s');
    expect(html).toContain('185 words per minute');
    expect(html).toContain('faster than the target of 120 to 160');
    expect(html).toContain('“um” ×3');
    expect(html).toMatch(/speech-to-text systems leave out filler words/);
    expect(html).toContain('may not mean you said none');
  });

  it('shows a quote cut inside the answer as whole words with an ellipsis', () => {
    const answer = 'First, the client sends a unique key with each payment, and the server stores it. That is all.';
    const html = renderToStaticMarkup(<EvaluationView evaluation={{ ...base, evidence: [{ ...base.evidence[0], quote: 'e client sends a unique key with each paym' }] }} answer={answer} />);
    expect(html).toContain('“…the client sends a unique key with each payment…”');
  });

  it('speaks of the candidate to someone the report was shared with', () => {
    const html = renderToStaticMarkup(
      <EvaluationView evaluation={{ ...base, delivery: { seconds: 40, wordsPerMinute: 130, words: 87, fillers: [] } }} answer="the client sends a unique key with each payment" reader="guest" />,
    );
    expect(html).toContain('may not mean the candidate said none');
    // “you know” is a filler word the note names, not the reader.
    expect(html).not.toMatch(/\byou\b(?! know)/i);
  });
});

describe('bands', () => {
  it('gives a story more room than a technical answer', () => {
    expect(lengthBand(true)).toEqual({ min: 45, max: 120 });
    expect(lengthBand(false).min).toBeLessThan(45);
  });
  it('places a value against a band', () => {
    expect(against(140, { min: 120, max: 160 }, 'slow', 'fast').ok).toBe(true);
    expect(against(100, { min: 120, max: 160 }, 'slow', 'fast').text).toBe('slow');
    expect(duration(95)).toBe('1 min 35 s');
  });
});
