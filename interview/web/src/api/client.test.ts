import { describe, expect, it } from 'vitest';
import { alreadyEvaluatingMessage, createApi } from './client';
import { ApiError } from './types';
import { evaluation, wireConfig, wireEvaluation, wireQuestion, wireReport, wireResult, wireSession, wireUser } from './testdata';

interface Seen {
  url: string;
  method: string;
  body: unknown;
  headers: Record<string, string>;
}

// A fake server: each call records the request and answers with the next
// scripted response.
function fakeFetch(responses: (Response | Error)[]) {
  const seen: Seen[] = [];
  const fn = async (url: string, init?: RequestInit) => {
    const body = init?.body;
    seen.push({
      url,
      method: init?.method ?? 'GET',
      body: typeof body === 'string' ? JSON.parse(body) : body,
      headers: (init?.headers ?? {}) as Record<string, string>,
    });
    const next = responses.shift();
    if (!next) throw new Error('no scripted response');
    if (next instanceof Error) throw next;
    return next;
  };
  return { fn, seen };
}

const json = (status: number, body: unknown) =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('api client', () => {
  it('sends the pinned answer body and reads the evaluation', async () => {
    const f = fakeFetch([json(200, { evaluation: wireEvaluation(), nextQuestion: wireQuestion('q2', { text: 'What is a mutex?' }), isLastQuestion: false, answeredQuestions: 1 })]);
    const api = createApi(f.fn);
    const r = await api.answer('s1', 'q1', 'A goroutine is a lightweight thread.');
    expect(f.seen[0]).toMatchObject({
      url: '/api/interview/answer',
      method: 'POST',
      body: { sessionId: 's1', questionId: 'q1', answer: 'A goroutine is a lightweight thread.' },
    });
    expect(f.seen[0].headers['Content-Type']).toBe('application/json');
    expect(r).toEqual({
      kind: 'evaluated',
      evaluation,
      nextQuestion: { id: 'q2', text: 'What is a mutex?', kind: 'main' },
      isLastQuestion: false,
      answeredQuestions: 1,
    });
  });

  it('sends recordingSeconds for a spoken answer and reads evidence, STAR and delivery', async () => {
    const f = fakeFetch([
      json(200, {
        evaluation: wireEvaluation({
          score: 64,
          evidence: [{ kind: 'strength', point: 'Covered: keys', quote: 'the client sends a key' }],
          star: { situation: true, task: false, action: true, result: false },
          delivery: { seconds: 42.5, wordsPerMinute: 131, words: 93, fillers: [{ word: 'um', count: 2 }] },
        }),
        nextQuestion: null,
        isLastQuestion: true,
        answeredQuestions: 3,
      }),
    ]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'the client sends a key', 42.54);
    expect(f.seen[0].body).toEqual({ sessionId: 's1', questionId: 'q1', answer: 'the client sends a key', recordingSeconds: 42.5 });
    if (r.kind !== 'evaluated') throw new Error('not evaluated');
    expect(r.evaluation.evidence).toEqual([{ kind: 'strength', point: 'Covered: keys', quote: 'the client sends a key' }]);
    expect(r.evaluation.star).toEqual({ situation: true, task: false, action: true, result: false });
    expect(r.evaluation.delivery).toEqual({ seconds: 42.5, wordsPerMinute: 131, words: 93, fillers: [{ word: 'um', count: 2 }] });
  });

  it('reads "not enough to score"; a typed answer sends no recordingSeconds', async () => {
    const f = fakeFetch([json(200, { evaluation: wireEvaluation({ scorable: false, score: 0 }), nextQuestion: null, isLastQuestion: true, answeredQuestions: 1 })]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'I like pizza');
    expect(r.kind === 'evaluated' && r.evaluation.scorable).toBe(false);
    expect(f.seen[0].body).not.toHaveProperty('recordingSeconds');
  });

  it('reads a follow-up as the next question', async () => {
    const next = { id: 'q1-f1', text: 'And the result?', kind: 'followUp', parentId: 'q1' };
    const f = fakeFetch([json(200, { evaluation: wireEvaluation({ score: 30 }), nextQuestion: next, isLastQuestion: false, answeredQuestions: 1 })]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'x');
    expect(r).toMatchObject({ kind: 'evaluated', nextQuestion: next, answeredQuestions: 1 });
  });

  it('sends a second try and reads the score change; a 409 is an error with the reason', async () => {
    const f = fakeFetch([
      json(200, { evaluation: wireEvaluation({ score: 72, feedback: 'Better.' }), previousScore: 45, nextQuestion: null }),
      json(409, { error: { code: 'conflict', message: 'you have already had a second try at this question' } }),
    ]);
    const api = createApi(f.fn);
    const r = await api.retry('s1', 'q1', 'A better answer.');
    expect(f.seen[0]).toMatchObject({ url: '/api/interview/retry', method: 'POST', body: { sessionId: 's1', questionId: 'q1', answer: 'A better answer.' } });
    expect(r.previousScore).toBe(45);
    expect(r.evaluation.score).toBe(72);
    const err = await api.retry('s1', 'q1', 'again').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, message: expect.stringMatching(/already had a second try/) });
  });

  it('shares, unshares and reads a shared report', async () => {
    const f = fakeFetch([
      json(201, { token: 'tok', url: 'http://x/shared/tok' }),
      json(204, null),
      json(
        200,
        wireReport({
          questionResults: [wireResult('q1', { counted: 'retry', retry: { answer: 'b', evaluation: wireEvaluation({ score: 80 }) } })],
          requirements: [
            { text: 'Go', coveredBy: ['q1'] },
            { text: 'Rust', coveredBy: null },
          ],
          interview: { role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 1, completedAt: '2026-03-01T12:00:00Z' },
        }),
      ),
    ]);
    const api = createApi(f.fn);
    expect(await api.share('i/1')).toEqual({ token: 'tok', url: 'http://x/shared/tok' });
    await api.unshare('i/1');
    const s = await api.shared('a/b');
    expect(f.seen.map((x) => [x.method, x.url])).toEqual([
      ['POST', '/api/interview/i%2F1/share'],
      ['DELETE', '/api/interview/i%2F1/share'],
      ['GET', '/api/shared/a%2Fb'],
    ]);
    expect(s.role).toBe('Backend');
    expect(s.report.overallScore).toBe(70);
    expect(s.report.questions).toBe(1);
    expect(s.report.weaknesses).toEqual([]);
    expect(s.report.requirements).toEqual([
      { text: 'Go', coveredBy: ['q1'] },
      { text: 'Rust', coveredBy: [] },
    ]);
    expect(s.report.questionResults[0]).toMatchObject({ counted: 'retry', retry: { answer: 'b', evaluation: { score: 80 } } });
  });

  it('turns a 409 into "already being evaluated", not an error', async () => {
    const f = fakeFetch([json(409, { error: { code: 'conflict', message: 'answer is being evaluated' } })]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'x');
    expect(r).toEqual({ kind: 'already-evaluating', message: alreadyEvaluatingMessage });
    expect(alreadyEvaluatingMessage).toMatch(/already being evaluated/);
  });

  const errors: { name: string; res: Response | Error; status: number; code: string; message: RegExp }[] = [
    { name: 'pinned error body', res: json(400, { error: { code: 'invalid_argument', message: 'role is required' } }), status: 400, code: 'invalid_argument', message: /^role is required$/ },
    { name: 'non-JSON 502 from a proxy', res: new Response('<html>bad gateway</html>', { status: 502 }), status: 502, code: 'http_502', message: /could not complete/ },
    { name: 'network failure', res: new TypeError('Failed to fetch'), status: 0, code: 'network', message: /Cannot reach the server/ },
    { name: '404 with the pinned body', res: json(404, { error: { code: 'not_found', message: 'interview not found' } }), status: 404, code: 'not_found', message: /interview not found/ },
    { name: 'a 201 that is not JSON', res: new Response('<html>ok</html>', { status: 201 }), status: 201, code: 'bad_response', message: /not JSON/ },
    { name: 'a 201 without the first question', res: json(201, { sessionId: 's9', welcome: 'Hi', mode: 'offline' }), status: 201, code: 'bad_response', message: /question: expected an object, got nothing/ },
  ];
  for (const c of errors) {
    it(`raises ApiError for ${c.name}`, async () => {
      const f = fakeFetch([c.res]);
      const err = await createApi(f.fn)
        .start({ candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: c.status, code: c.code, message: expect.stringMatching(c.message) });
    });
  }

  it('me() answers null on 401 and the user otherwise', async () => {
    const f = fakeFetch([json(401, { error: { code: 'unauthenticated', message: 'sign in' } }), json(200, wireUser()), json(200, wireUser({ hasPassword: true }))]);
    const api = createApi(f.fn);
    expect(await api.me()).toBeNull();
    expect(await api.me()).toEqual({ _id: 'u1', fullName: 'Ada', email: 'a@b.c', hasPassword: false });
    expect((await api.me())?.hasPassword).toBe(true);
  });

  it('reads config with the server\'s limits', async () => {
    const f = fakeFetch([json(200, wireConfig())]);
    expect(await createApi(f.fn).config()).toEqual({
      googleClientId: '',
      voice: { transcribe: true, speech: false },
      mode: 'offline',
      roleFamilies: ['backend engineering'],
      fallbackFamily: 'backend engineering',
      difficulties: ['easy', 'medium', 'hard'],
      defaultDifficulty: 'medium',
      limits: { minQuestions: 1, maxQuestions: 20, maxFollowUps: 2, defaultFollowUps: 1, maxSetupText: 100, minPassword: 8, maxAnswer: 10000, maxJobDescription: 10000, maxInProgress: 3 },
    });
  });

  it('start posts the setup and returns the first question', async () => {
    const f = fakeFetch([json(201, { sessionId: 's9', welcome: 'Hi', question: wireQuestion('q1', { text: 'Tell me about yourself.' }), mode: 'offline' })]);
    const setup = { candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3, jobDescription: '- Go', followUps: 2 };
    const s = await createApi(f.fn).start(setup);
    expect(f.seen[0].body).toEqual(setup);
    expect(s).toEqual({ sessionId: 's9', welcome: 'Hi', question: { id: 'q1', text: 'Tell me about yourself.', kind: 'main' }, mode: 'offline' });
  });

  it('escapes the interview id in the path', async () => {
    const f = fakeFetch([json(200, wireSession({ sessionId: 'a/b' }))]);
    expect((await createApi(f.fn).session('a/b')).id).toBe('a/b');
    expect(f.seen[0].url).toBe('/api/interview/a%2Fb');
  });

  it('sends exactly one file part to transcribe', async () => {
    const f = fakeFetch([json(200, { text: 'hello there' })]);
    const text = await createApi(f.fn).transcribe(new Blob(['x'], { type: 'audio/webm' }), 'answer.webm');
    expect(text).toBe('hello there');
    const form = f.seen[0].body as FormData;
    expect([...form.keys()]).toEqual(['file']);
    expect((form.get('file') as File).name).toBe('answer.webm');
    expect(f.seen[0].headers['Content-Type']).toBeUndefined();
  });

  it('speech raises the status so the player can fall back', async () => {
    const f = fakeFetch([json(429, { error: { code: 'rate_limited', message: 'slow down' } })]);
    const err = await createApi(f.fn)
      .speech('Hello.')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429 });
  });

  it('asks for a history page with limit and before, and keeps the pinned fields', async () => {
    const item = { _id: 'i1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3, overallScore: 81, technicalAccuracy: 85, communicationScore: 72, date: '2025-01-02T03:04:05Z' };
    const f = fakeFetch([json(200, [{ ...item, candidateName: 'Ada', answeredQuestions: 3 }]), json(200, [])]);
    const api = createApi(f.fn);
    expect(await api.history()).toEqual([item]);
    await api.history({ limit: 20, before: '2026-03-01T12:00:00.123456Z' });
    expect(f.seen[0].url).toBe('/api/interview/history');
    expect(f.seen[1].url).toBe('/api/interview/history?limit=20&before=2026-03-01T12%3A00%3A00.123456Z');
  });

  it('lists interviews in progress and discards one', async () => {
    const item = { _id: 'i/1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 5, questionNumber: 2, followUp: true, createdAt: '2026-03-01T12:00:00Z' };
    const f = fakeFetch([json(200, [item]), json(204, null)]);
    const api = createApi(f.fn);
    expect(await api.active()).toEqual([item]);
    await api.discard('i/1');
    expect(f.seen[1]).toMatchObject({ url: '/api/interview/i%2F1', method: 'DELETE', body: undefined });
  });

  it('sends the account requests in the pinned shapes', async () => {
    const f = fakeFetch([json(204, null), json(204, null), json(204, null), json(204, null)]);
    const api = createApi(f.fn);
    await api.changePassword('old secret', 'new secret');
    await api.logoutAll();
    await api.deleteAccount('my password');
    await api.deleteAccount('');
    expect(f.seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/api/auth/password', { currentPassword: 'old secret', newPassword: 'new secret' }],
      ['POST', '/api/auth/logout-all', undefined],
      ['DELETE', '/api/auth/me', { password: 'my password' }],
      ['DELETE', '/api/auth/me', undefined],
    ]);
  });

  it('passes a limit refusal on as the server says it', async () => {
    const f = fakeFetch([json(429, { error: { code: 'rate_limited', message: 'You have sent many answers in a short time. You can send this one in 40 seconds.' } })]);
    const err = await createApi(f.fn)
      .answer('s1', 'q1', 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, message: 'You have sent many answers in a short time. You can send this one in 40 seconds.' });
  });
});

// The 401 rule: a call that needs a session and gets a 401 reports the
// lost session once, to one listener; calls whose 401 means something else
// (wrong credentials, nobody signed in yet, a public page) do not.
describe('a lost session', () => {
  const unauthenticated = () => json(401, { error: { code: 'unauthenticated', message: 'sign in' } });

  it('is reported once per 401 of a call that needs a session, and the call still fails', async () => {
    let lost = 0;
    const f = fakeFetch([unauthenticated(), unauthenticated(), unauthenticated()]);
    const api = createApi(f.fn, () => lost++);
    const err = await api.session('s1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401 });
    expect(lost).toBe(1);
    await api.answer('s1', 'q1', 'x').catch(() => undefined);
    await api.speech('Hello.').catch(() => undefined);
    expect(lost).toBe(3);
  });

  it('is not a wrong password, nobody signed in yet, or a shared page', async () => {
    let lost = 0;
    const f = fakeFetch([
      json(401, { error: { code: 'unauthenticated', message: 'Email or password is incorrect.' } }),
      unauthenticated(),
      unauthenticated(),
      unauthenticated(),
      json(403, { error: { code: 'permission_denied', message: 'the current password is incorrect' } }),
    ]);
    const api = createApi(f.fn, () => lost++);
    const wrong = await api.login('a@b.c', 'nope').catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 401, message: 'Email or password is incorrect.' });
    expect(await api.me()).toBeNull();
    await api.google('token').catch(() => undefined);
    await api.shared('tok').catch(() => undefined);
    // A wrong current password is 403: the session is fine.
    const denied = await api.changePassword('wrong', 'new secret').catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 403, message: 'the current password is incorrect' });
    expect(lost).toBe(0);
  });

  it('is not reported for other failures', async () => {
    let lost = 0;
    const f = fakeFetch([json(404, { error: { code: 'not_found', message: 'interview not found' } }), new TypeError('Failed to fetch')]);
    const api = createApi(f.fn, () => lost++);
    await api.session('s1').catch(() => undefined);
    await api.history().catch(() => undefined);
    expect(lost).toBe(0);
  });
});

describe('session', () => {
  it('reads an interview in progress with the server\'s count of answered questions', async () => {
    const s = await createApi(fakeFetch([json(200, wireSession())]).fn).session('s1');
    expect(s).toMatchObject({ id: 's1', status: 'in_progress', totalQuestions: 3, answeredQuestions: 1, followUps: 1, completedAt: '' });
    expect(s.currentQuestion).toEqual({ id: 'q2', text: 'q2?', kind: 'main' });
    expect(s.results).toHaveLength(1);
    expect(s.results[0]).toMatchObject({ retry: null, counted: '' });
    expect(s.report).toBeNull();
    expect(s.requirements).toEqual([]);
    expect(s.shared).toBe(false);
  });

  it('reads follow-ups, second tries, requirements and sharing', async () => {
    const body = wireSession({
      requirements: ['Go'],
      shared: true,
      currentQuestion: { id: 'q1-f1', text: 'And?', kind: 'followUp', parentId: 'q1' },
      questionResults: [wireResult('q1', { retry: { answer: 'b', evaluation: wireEvaluation({ score: 70 }) } })],
    });
    const s = await createApi(fakeFetch([json(200, body)]).fn).session('s1');
    expect(s.currentQuestion).toEqual({ id: 'q1-f1', text: 'And?', kind: 'followUp', parentId: 'q1' });
    expect(s.results[0].retry).toEqual({ answer: 'b', evaluation: expect.objectContaining({ score: 70 }) });
    expect(s.requirements).toEqual(['Go']);
    expect(s.shared).toBe(true);
  });

  it('reads a completed interview with its report; scores the server did not give stay null', async () => {
    const body = wireSession({
      status: 'completed',
      currentQuestion: null,
      completedAt: '2026-03-01T13:00:00Z',
      report: wireReport({ overallScore: null, technicalAccuracy: null, communicationScore: null, questions: 1, scoredQuestions: 0 }),
    });
    const s = await createApi(fakeFetch([json(200, body)]).fn).session('s1');
    expect(s.status).toBe('completed');
    expect(s.currentQuestion).toBeNull();
    expect(s.completedAt).toBe('2026-03-01T13:00:00Z');
    const r = s.report!;
    expect([r.overallScore, r.technicalAccuracy, r.communicationScore, r.scoredQuestions, r.questions]).toEqual([null, null, null, 0, 1]);
  });
});
