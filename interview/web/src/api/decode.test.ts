import { describe, expect, it } from 'vitest';
import * as decode from './decode';
import { createApi } from './client';
import { ApiError } from './types';
import { evaluation, wireConfig, wireEvaluation, wireReport, wireResult, wireSession } from './testdata';

const problem = (body: unknown, read: (f: decode.Fields) => unknown): string => {
  try {
    decode.decode(body, read);
  } catch (err) {
    if (err instanceof decode.DecodeError) return err.message;
    throw err;
  }
  throw new Error('decoded without complaint');
};

describe('decoding server JSON', () => {
  it('reads what docs/api.md pins, ignoring fields it does not know', () => {
    const body = { ...wireEvaluation(), later: 'a field of a newer server' };
    expect(decode.decode(JSON.parse(JSON.stringify(body)), decode.evaluation)).toEqual(evaluation);
  });

  it('reads a list Go wrote as null as empty, and a field the server leaves out when empty as absent', () => {
    const e = decode.decode(wireEvaluation({ strengths: null, evidence: null, star: null }), decode.evaluation);
    expect([e.strengths, e.evidence, e.star, e.delivery]).toEqual([[], [], null, null]);
    const r = decode.decode(wireReport({ questionResults: [wireResult('q1')] }), decode.report);
    expect(r.questionResults[0]).toMatchObject({ retry: null, counted: '' });
  });

  it('refuses an evaluation without scorable: no answer is scorable by default', () => {
    const body = wireEvaluation();
    delete body.scorable;
    expect(problem(body, decode.evaluation)).toBe('scorable: expected true or false, got nothing');
  });

  const bad: { name: string; body: unknown; read: (f: decode.Fields) => unknown; want: string }[] = [
    { name: 'a score as a string', body: wireEvaluation({ score: '72' }), read: decode.evaluation, want: 'score: expected a number, got a string' },
    { name: 'an average as a string', body: { ...wireReport(), overallScore: 'NaN' }, read: decode.report, want: 'overallScore: expected a number, got a string' },
    {
      name: 'an unknown question kind, deep in a session',
      body: wireSession({ questionResults: [wireResult('q1'), wireResult('q2', { question: { id: 'q2', text: 'Q?', kind: 'bonus' } })] }),
      read: decode.session,
      want: 'questionResults[1].question.kind: expected "main" or "followUp", got a string',
    },
    {
      name: 'a follow-up without its main question',
      body: wireSession({ currentQuestion: { id: 'q1-f1', text: 'And?', kind: 'followUp' } }),
      read: decode.session,
      want: 'currentQuestion.parentId: expected a string, got nothing',
    },
    { name: 'a question without text', body: wireSession({ currentQuestion: { id: 'q2', text: '', kind: 'main' } }), read: decode.session, want: 'currentQuestion.text: a question has no text' },
    { name: 'an unknown status', body: wireSession({ status: 'paused' }), read: decode.session, want: 'status: expected "in_progress" or "completed", got a string' },
    {
      name: 'evidence of an unknown kind',
      body: wireEvaluation({ evidence: [{ kind: 'bogus', point: 'x', quote: 'y' }] }),
      read: decode.evaluation,
      want: 'evidence[0].kind: expected "strength" or "improvement", got a string',
    },
    { name: 'a list that is an object', body: wireReport({ strengths: { a: 1 } }), read: decode.report, want: 'strengths: expected a list, got an object' },
    { name: 'a body that is a list', body: [], read: decode.report, want: 'the body: expected an object, got a list' },
    { name: 'a config without difficulty levels', body: { ...wireConfig(), difficulties: undefined }, read: decode.config, want: 'difficulties: expected a list, got nothing' },
    { name: 'a config with no difficulty level', body: wireConfig({ difficulties: [] }), read: decode.config, want: 'difficulties: no difficulty level' },
    { name: 'a default difficulty that is not offered', body: wireConfig({ defaultDifficulty: 'insane' }), read: decode.config, want: 'defaultDifficulty: "insane" is not one of the difficulties' },
    { name: 'a config without limits', body: { ...wireConfig(), limits: undefined }, read: decode.config, want: 'limits: expected an object, got nothing' },
    { name: 'a session without the answered count', body: { ...wireSession(), answeredQuestions: undefined }, read: decode.session, want: 'answeredQuestions: expected a number, got nothing' },
  ];
  for (const c of bad) {
    it(`names the field for ${c.name}`, () => {
      expect(problem(c.body, c.read)).toBe(c.want);
    });
  }

  it('reads an off-topic evaluation, and one kept from before the field as on topic', () => {
    expect(decode.decode(wireEvaluation({ offTopic: true, score: 20 }), decode.evaluation)).toMatchObject({ offTopic: true, score: 20, scorable: true });
    expect(decode.decode(wireEvaluation({ offTopic: undefined }), decode.evaluation).offTopic).toBe(false);
    expect(problem(wireEvaluation({ offTopic: 'yes' }), decode.evaluation)).toBe('offTopic: expected true or false, got a string');
  });

  it('refuses a list body that is not a list, naming the item of one that is', () => {
    expect(() => decode.list({}, decode.historyItem)).toThrow('the body: expected a list, got an object');
    expect(() => decode.list([{ _id: 'i1' }], decode.historyItem)).toThrow('[0].role: expected a string, got nothing');
  });

  it('reads an error body, or nothing from a body that is not one', () => {
    expect(decode.errorBody({ error: { code: 'conflict', message: 'finished' } })).toEqual({ code: 'conflict', message: 'finished' });
    expect(decode.errorBody('<html>')).toBeNull();
    expect(decode.errorBody({ detail: 'x' })).toBeNull();
  });
});

describe('a response the page cannot read', () => {
  it('is an ApiError "bad_response" whose message names the field, not a page of made-up defaults', async () => {
    const body = wireSession({ questionResults: [wireResult('q1', { evaluation: { ...wireEvaluation(), scorable: undefined } })] });
    const fetchFn = async () => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
    const err = await createApi(fetchFn)
      .session('s1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 200,
      code: 'bad_response',
      message: 'The server sent a response this page cannot read (questionResults[0].evaluation.scorable: expected true or false, got nothing). Reload the page and try again.',
    });
  });
});
