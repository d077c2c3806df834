import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Evaluation, Report } from '../api/types';
import { oneLine, ReportView } from './ReportView';

const ev = (score: number, feedback: string, scorable = true): Evaluation => ({
  scorable,
  offTopic: false,
  score,
  technicalAccuracy: score,
  communication: score,
  feedback,
  strengths: ['Covered: Client sends an idempotency key'],
  improvements: [],
  evidence: [{ kind: 'strength', point: 'Covered: Client sends an idempotency key', quote: 'the client sends a key' }],
  star: null,
  delivery: null,
});

const report = (over: Partial<Report> = {}): Report => ({
  overallScore: 70,
  technicalAccuracy: 70,
  communicationScore: 70,
  questions: 2,
  scoredQuestions: 1,
  strengths: ['s'],
  weaknesses: ['w'],
  suggestedTopics: ['t'],
  feedback: 'Summary prose.',
  questionResults: [
    {
      question: { id: 'q1', text: 'What is idempotency?', kind: 'main' },
      answer: 'the client sends a key',
      evaluation: ev(50, 'Covered 1 of 4 key points. More words follow.'),
      retry: { answer: 'the client sends a key, and more', evaluation: ev(70, 'Covered 3 of 4 key points.') },
      counted: 'retry',
    },
    { question: { id: 'q2', text: 'Explain CORS.', kind: 'main' }, answer: 'asdf', evaluation: ev(0, 'Not enough to score: nonsense.', false), retry: null, counted: 'answer' },
  ],
  requirements: [],
  ...over,
});

describe('ReportView', () => {
  it('reads summary first, each question collapsed to its score and one line', () => {
    const html = renderToStaticMarkup(<ReportView report={report()} />);
    expect(html.indexOf('Summary')).toBeLessThan(html.indexOf('Question by question'));
    expect(html).toContain('(over the 1 scored question; 1 not scored)');
    const details = html.match(/<details>/g) ?? [];
    expect(details).toHaveLength(2); // closed: no "open" attribute
    expect(html).not.toContain('<details open');
    // The counted evaluation gives the line: the second try's 70.
    expect(html).toMatch(/q-score">70\/100<\/span><span class="q-line">Covered 3 of 4 key points\.<\/span>/);
    expect(html).toMatch(/q-score unscored">Not scored</);
    // The first try's feedback is folded behind the second's.
    expect(html).toContain('Feedback on the first try (50/100)');
  });

  it('has no overall score when nothing was scored', () => {
    const html = renderToStaticMarkup(<ReportView report={report({ overallScore: null, technicalAccuracy: null, communicationScore: null, scoredQuestions: 0 })} />);
    expect(html).toContain('Not scored:');
    expect(html).not.toContain('Overall score:');
  });

  it('speaks of the candidate to someone the report was shared with', () => {
    const html = renderToStaticMarkup(<ReportView report={report()} reader="guest" />);
    expect(html).not.toMatch(/\bYour\b/);
    expect(html).toContain("The candidate&#x27;s first try:");
  });

  it('cuts a feedback to its first sentence', () => {
    expect(oneLine('Covered 2 of 4 key points: A; B. Missed: C.')).toBe('Covered 2 of 4 key points: A; B.');
    expect(oneLine('x'.repeat(200))).toHaveLength(140);
    // A long sentence stops between words, with an ellipsis.
    const long = oneLine(`Covered 1 of 5 key points: ${'idempotency keys stored with the response, '.repeat(5)}and retries.`);
    expect(long.length).toBeLessThanOrEqual(140);
    expect(long).toMatch(/ (idempotency|keys|stored|with|the|response)…$/);
  });
});
