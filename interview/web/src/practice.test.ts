import { describe, expect, it } from 'vitest';
import type { Evaluation, HistoryItem, Limits, QuestionResult } from './api/types';
import {
  allAnswered,
  canRetry,
  count,
  countedNote,
  followUpChoices,
  coverageText,
  numberOf,
  practiceLink,
  progressSeries,
  rolesOf,
  whenLabel,
  questionLabel,
  questionName,
  readPrefill,
  scoreChange,
  secondTryNote,
  threads,
  tryChange,
  weakestArea,
} from './practice';

const ev = (score: number): Evaluation => ({ scorable: true, offTopic: false, score, technicalAccuracy: score, communication: score, feedback: '', strengths: [], improvements: [], evidence: [], star: null, delivery: null });

function main(id: string, score: number, extra: Partial<QuestionResult> = {}): QuestionResult {
  return { question: { id, text: `${id}?`, kind: 'main' }, answer: `${id} answer`, evaluation: ev(score), retry: null, counted: '', ...extra };
}

function followUp(id: string, parent: string, score: number, extra: Partial<QuestionResult> = {}): QuestionResult {
  return { question: { id, text: `${id}?`, kind: 'followUp', parentId: parent }, answer: `${id} answer`, evaluation: ev(score), retry: null, counted: '', ...extra };
}

// The server's limits as GET /api/config gives them by default.
const limits: Limits = { minQuestions: 1, maxQuestions: 20, maxFollowUps: 2, defaultFollowUps: 1, maxSetupText: 100, minPassword: 8, maxAnswer: 10000, maxJobDescription: 10000, maxInProgress: 3 };

// The difficulty levels as GET /api/config gives them.
const levels = { difficulties: ['easy', 'medium', 'hard'], defaultDifficulty: 'medium' };

const results = [main('q1', 40), followUp('q1-f1', 'q1', 70), followUp('q1-f2', 'q1', 75), main('q2', 60), followUp('q2-f1', 'q2', 50)];

describe('threads', () => {
  it('groups follow-ups under their main question and numbers main questions only', () => {
    const t = threads(results);
    expect(t.map((x) => [x.number, x.main.question.id, x.followUps.map((f) => f.question.id)])).toEqual([
      [1, 'q1', ['q1-f1', 'q1-f2']],
      [2, 'q2', ['q2-f1']],
    ]);
    expect(numberOf(results, 'q2-f1')).toBe(2);
    expect(numberOf(results, 'nope')).toBe(0);
  });

  it('labels the question being asked', () => {
    expect(questionLabel({ id: 'q3', text: '?', kind: 'main' }, 2, 5)).toBe('Question 3 of 5');
    expect(questionLabel({ id: 'q2-f2', text: '?', kind: 'followUp', parentId: 'q2' }, 2, 5)).toBe('Follow-up to question 2');
  });

  it('names questions in a report', () => {
    expect(questionName(results, 'q1')).toBe('question 1');
    expect(questionName(results, 'q1-f2')).toBe('follow-up 2 to question 1');
    expect(questionName(results, 'q2-f1')).toBe('the follow-up to question 2');
  });
});

describe('second tries', () => {
  it('is offered for the last result only, once, while in progress', () => {
    expect(canRetry(results, true)).toBe(true);
    expect(canRetry(results, false)).toBe(false);
    expect(canRetry([main('q1', 10, { retry: { answer: 'b', evaluation: ev(20) } })], true)).toBe(false);
    expect(canRetry([], true)).toBe(false);
  });

  it('says the score change', () => {
    expect(scoreChange(45, 72)).toBe('+27');
    expect(scoreChange(72, 45)).toBe('\u221227');
    expect(scoreChange(50, 50)).toBe('no change');
  });

  it('says a second try\'s result in words when an answer had nothing to score', () => {
    const none = { ...ev(0), scorable: false };
    expect(secondTryNote(ev(45), ev(72))).toBe('Your first answer scored 45; this one scores 72 (+27).');
    expect(secondTryNote(ev(60), ev(30))).toBe('Your first answer scored 60; this one scores 30 (\u221230).');
    expect(secondTryNote(none, ev(46))).toBe('Your first answer had nothing to score; this one scores 46.');
    expect(secondTryNote(ev(46), none)).toBe('This answer had nothing to score; your first answer keeps its 46.');
    expect(secondTryNote(none, none)).toBe('Neither answer had anything to score, so this question has no score yet.');
    for (const [a, b] of [[none, ev(46)], [ev(46), none], [none, none]]) {
      expect(secondTryNote(a, b)).not.toMatch(/\b0\b|\+46|\u221246/);
      expect(tryChange(a, b)).not.toMatch(/\b0\b|\+46|\u221246/);
    }
    expect(tryChange(none, ev(97))).toBe('97; your first answer had nothing to score');
    expect(tryChange(none, ev(97), 'guest')).toBe("97; the candidate's first answer had nothing to score");
  });

  it('says what the report counted', () => {
    const retried = threads([main('q1', 45, { retry: { answer: 'b', evaluation: ev(72) }, counted: 'retry' })])[0];
    expect(countedNote(retried)).toBe('Counted: your second try (72, +27 on your first answer).');
    const kept = threads([main('q1', 60, { retry: { answer: 'b', evaluation: ev(30) }, counted: 'answer' })])[0];
    expect(countedNote(kept)).toBe('Counted: your first try (60); the second try scored 30.');
    const viaFollowUp = threads([main('q1', 40), followUp('q1-f1', 'q1', 66, { counted: 'answer' })])[0];
    expect(countedNote(viaFollowUp)).toBe('Counted: your answer to the follow-up (66, +26 on your first answer).');
    expect(countedNote(threads([main('q1', 40, { counted: 'answer' })])[0])).toBe('');
    // A first answer with nothing to score has no score to rise from.
    const none = { ...ev(0), scorable: false };
    const afterNothing = threads([main('q1', 0, { evaluation: none, retry: { answer: 'b', evaluation: ev(97) }, counted: 'retry' })])[0];
    expect(countedNote(afterNothing)).toBe('Counted: your second try (97; your first answer had nothing to score).');
    expect(countedNote(afterNothing, 'guest')).toBe("Counted: the candidate's second try (97; the candidate's first answer had nothing to score).");
    const keptOverNothing = threads([main('q1', 60, { retry: { answer: 'b', evaluation: none }, counted: 'answer' })])[0];
    expect(countedNote(keptOverNothing)).toBe('Counted: your first try (60); the second try had nothing to score.');
    expect(countedNote(threads([main('q1', 0, { evaluation: none, retry: { answer: 'b', evaluation: none }, counted: 'answer' })])[0])).toBe('');
  });

  it('counts with the right noun', () => {
    expect(count(1, 'question')).toBe('1 question');
    expect(count(3, 'question')).toBe('3 questions');
    expect(count(0, 'warning')).toBe('0 warnings');
    expect(count(1, 'main requirement')).toBe('1 main requirement');
    expect(allAnswered(1)).toBe('The question is answered');
    expect(allAnswered(3)).toBe('All 3 questions answered');
  });
});

describe('coverage', () => {
  it('names the answers that covered a requirement, or none', () => {
    expect(coverageText({ text: 'Go', coveredBy: ['q1', 'q2-f1'] }, results)).toBe('Covered by question 1 and the follow-up to question 2.');
    expect(coverageText({ text: 'Go', coveredBy: ['q1', 'q1-f1', 'q2'] }, results)).toBe('Covered by question 1, follow-up 1 to question 1 and question 2.');
    expect(coverageText({ text: 'Go', coveredBy: [] }, results)).toBe('No answer touched this.');
  });
});

const hist = (id: string, date: string, tech: number, comm: number, difficulty = 'medium', role = 'Backend'): HistoryItem => ({
  _id: id,
  role,
  experience: 'Senior',
  difficulty,
  totalQuestions: 3,
  overallScore: Math.round(0.7 * tech + 0.3 * comm),
  technicalAccuracy: tech,
  communicationScore: comm,
  date,
});

describe('progress', () => {
  it('puts the history oldest first', () => {
    const s = progressSeries([hist('b', '2026-03-02T00:00:00Z', 60, 70), hist('a', '2026-03-01T00:00:00Z', 50, 40)]);
    expect(s.map((p) => p.id)).toEqual(['a', 'b']);
    expect(s[0]).toMatchObject({ technical: 50, communication: 40, overall: 47 });
  });

  it('names the weakest area of the latest interviews and what to practise', () => {
    const items = [
      hist('old', '2026-01-01T00:00:00Z', 10, 90), // outside the latest five
      ...[1, 2, 3, 4, 5].map((d) => hist(`n${d}`, `2026-03-0${d}T00:00:00Z`, 70, 40, 'hard', d === 5 ? 'Data engineer' : 'Backend')),
    ];
    const w = weakestArea(items, levels);
    expect(w).toEqual({ area: 'communication', mean: 40, over: 5, role: 'Data engineer', difficulty: 'medium' });
    expect(practiceLink(w!, limits)).toBe('/?role=Data+engineer&difficulty=medium&followUps=2&focus=communication');
    expect(practiceLink(w!, { ...limits, maxFollowUps: 3 })).toContain('followUps=3');
    // At 50 or more the difficulty stays.
    expect(weakestArea([hist('a', '2026-03-01T00:00:00Z', 55, 80, 'hard')], levels)).toMatchObject({ area: 'technical', difficulty: 'hard' });
    expect(weakestArea([], levels)).toBeNull();
  });

  it('steps down the levels the server gives, not a list of its own', () => {
    const five = { difficulties: ['intro', 'easy', 'medium', 'hard', 'expert'], defaultDifficulty: 'easy' };
    expect(weakestArea([hist('a', '2026-03-01T00:00:00Z', 30, 80, 'easy')], five)?.difficulty).toBe('intro');
    expect(weakestArea([hist('a', '2026-03-01T00:00:00Z', 30, 80, 'expert')], five)?.difficulty).toBe('hard');
    expect(weakestArea([hist('a', '2026-03-01T00:00:00Z', 30, 80, 'intro')], five)?.difficulty).toBe('intro');
    // A level the server no longer offers: its default.
    expect(weakestArea([hist('a', '2026-03-01T00:00:00Z', 30, 80, 'insane')], five)?.difficulty).toBe('easy');
    expect(readPrefill('?difficulty=expert', limits, five.difficulties)).toEqual({ difficulty: 'expert' });
    expect(readPrefill('?difficulty=expert', limits, levels.difficulties)).toEqual({});
  });

  it('leaves interviews with nothing scored out of the chart and the weakest area', () => {
    const gibberish = { ...hist('g', '2026-03-03T00:00:00Z', 0, 0), overallScore: null, technicalAccuracy: null, communicationScore: null };
    const items = [hist('a', '2026-03-01T00:00:00Z', 50, 80), gibberish];
    expect(progressSeries(items).map((p) => p.id)).toEqual(['a']);
    expect(weakestArea(items, levels)).toMatchObject({ area: 'technical', mean: 50, over: 1 });
    expect(weakestArea([gibberish], levels)).toBeNull();
    expect(rolesOf([gibberish])).toEqual([]);
  });

  it('numbers the points and keeps to one role when asked', () => {
    const items = [
      hist('a', '2026-03-01T09:00:00Z', 50, 80, 'medium', 'Backend'),
      hist('b', '2026-03-01T17:00:00Z', 60, 70, 'medium', 'Frontend'),
      hist('c', '2026-03-02T09:00:00Z', 70, 60, 'medium', 'Backend'),
    ];
    expect(rolesOf(items)).toEqual(['Backend', 'Frontend']);
    expect(progressSeries(items, 'Backend').map((p) => [p.id, p.seq])).toEqual([
      ['a', 1],
      ['c', 2],
    ]);
    expect(whenLabel('2026-03-01T09:00:00Z')).not.toBe(whenLabel('2026-03-01T17:00:00Z'));
  });

  it('reads a practice link back into the setup, and nothing else', () => {
    expect(readPrefill('?role=Data+engineer&difficulty=medium&followUps=2&focus=communication', limits, levels.difficulties)).toEqual({
      role: 'Data engineer',
      difficulty: 'medium',
      followUps: 2,
      focus: 'communication',
    });
    expect(readPrefill('?difficulty=insane&followUps=7&focus=charm&role=%20', limits, levels.difficulties)).toEqual({});
    expect(readPrefill('?followUps=-1', limits, levels.difficulties)).toEqual({});
    expect(readPrefill(`?role=${'x'.repeat(300)}`, limits, levels.difficulties).role).toHaveLength(100);
    // The server's limits, not copies: a server allowing three follow-ups
    // and longer roles is read as such.
    expect(readPrefill(`?followUps=3&role=${'x'.repeat(300)}`, { ...limits, maxFollowUps: 3, maxSetupText: 200 }, levels.difficulties)).toEqual({ followUps: 3, role: 'x'.repeat(200) });
  });

  it('offers the follow-up settings the server allows, its default first', () => {
    expect(followUpChoices(limits)).toEqual([
      { value: '', label: 'Up to one per question (default)' },
      { value: '0', label: 'None' },
      { value: '2', label: 'Up to two per question' },
    ]);
    expect(followUpChoices({ ...limits, maxFollowUps: 3, defaultFollowUps: 0 }).map((c) => c.label)).toEqual([
      'None (default)',
      'Up to one per question',
      'Up to two per question',
      'Up to three per question',
    ]);
  });
});
