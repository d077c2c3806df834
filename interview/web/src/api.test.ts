import { describe, expect, it } from 'vitest';
import { alreadyEvaluatingMessage, ApiError, createApi, toReport, toSession } from './api';

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
    const f = fakeFetch([
      json(200, {
        evaluation: { score: 72, technicalAccuracy: 70, communication: 75, feedback: 'Good.', strengths: ['clear'], improvements: ['depth'] },
        nextQuestion: { id: 'q2', text: 'What is a mutex?' },
        isLastQuestion: false,
      }),
    ]);
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
      evaluation: {
        scorable: true,
        score: 72,
        technicalAccuracy: 70,
        communication: 75,
        feedback: 'Good.',
        strengths: ['clear'],
        improvements: ['depth'],
        evidence: [],
        star: null,
        delivery: null,
      },
      nextQuestion: { id: 'q2', text: 'What is a mutex?', kind: 'main' },
      isLastQuestion: false,
    });
  });

  it('sends recordingSeconds for a spoken answer and reads evidence, STAR and delivery', async () => {
    const f = fakeFetch([
      json(200, {
        evaluation: {
          scorable: true,
          score: 64,
          strengths: ['Covered: keys'],
          improvements: [],
          evidence: [
            { kind: 'strength', point: 'Covered: keys', quote: 'the client sends a key' },
            { kind: 'bogus', point: 'x', quote: 'y' },
            { kind: 'improvement', point: 'no quote', quote: '' },
          ],
          star: { situation: true, task: false, action: true, result: false },
          delivery: { seconds: 42.5, wordsPerMinute: 131, words: 93, fillers: [{ word: 'um', count: 2 }] },
        },
        nextQuestion: null,
        isLastQuestion: true,
      }),
    ]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'the client sends a key', 42.54);
    expect(f.seen[0].body).toEqual({ sessionId: 's1', questionId: 'q1', answer: 'the client sends a key', recordingSeconds: 42.5 });
    if (r.kind !== 'evaluated') throw new Error('not evaluated');
    expect(r.evaluation.evidence).toEqual([{ kind: 'strength', point: 'Covered: keys', quote: 'the client sends a key' }]);
    expect(r.evaluation.star).toEqual({ situation: true, task: false, action: true, result: false });
    expect(r.evaluation.delivery).toEqual({ seconds: 42.5, wordsPerMinute: 131, words: 93, fillers: [{ word: 'um', count: 2 }] });
  });

  it('reads "not enough to score", and old evaluations as scorable', async () => {
    const f = fakeFetch([json(200, { evaluation: { scorable: false, score: 0 }, nextQuestion: null, isLastQuestion: true })]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'I like pizza');
    expect(r.kind === 'evaluated' && r.evaluation.scorable).toBe(false);
    expect(f.seen[0].body).not.toHaveProperty('recordingSeconds');
  });

  it('reads a follow-up as the next question', async () => {
    const f = fakeFetch([json(200, { evaluation: { score: 30 }, nextQuestion: { id: 'q1-f1', text: 'And the result?', kind: 'followUp', parentId: 'q1' }, isLastQuestion: false })]);
    const r = await createApi(f.fn).answer('s1', 'q1', 'x');
    expect(r).toMatchObject({ kind: 'evaluated', nextQuestion: { id: 'q1-f1', text: 'And the result?', kind: 'followUp', parentId: 'q1' } });
  });

  it('sends a second try and reads the score change; a 409 is an error with the reason', async () => {
    const f = fakeFetch([
      json(200, { evaluation: { score: 72, feedback: 'Better.' }, previousScore: 45 }),
      json(409, { error: { code: 'conflict', message: 'you have already had a second try at this question' } }),
    ]);
    const api = createApi(f.fn);
    const r = await api.retry('s1', 'q1', 'A better answer.');
    expect(f.seen[0]).toMatchObject({ url: '/api/interview/retry', method: 'POST', body: { sessionId: 's1', questionId: 'q1', answer: 'A better answer.' } });
    expect(r.previousScore).toBe(45);
    expect(r.evaluation.score).toBe(72);
    const err = await api.retry('s1', 'q1', 'again').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(409);
    expect(err.message).toMatch(/already had a second try/);
  });

  it('shares, unshares and reads a shared report', async () => {
    const f = fakeFetch([
      json(201, { token: 'tok', url: 'http://x/shared/tok' }),
      json(204, null),
      json(200, {
        overallScore: 70,
        questionResults: [{ question: { id: 'q1', text: 'Q?', kind: 'main' }, answer: 'a', evaluation: { score: 70 }, counted: 'retry', retry: { answer: 'b', evaluation: { score: 80 } } }],
        requirements: [{ text: 'Go', coveredBy: ['q1'] }, { text: 'Rust' }],
        interview: { candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', completedAt: '2026-03-01T12:00:00Z' },
      }),
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

  it('reads the last answer: no next question', async () => {
    const f = fakeFetch([json(200, { evaluation: { score: 50 }, nextQuestion: null, isLastQuestion: true })]);
    const r = await createApi(f.fn).answer('s1', 'q5', 'x');
    expect(r).toMatchObject({ kind: 'evaluated', nextQuestion: null, isLastQuestion: true });
  });

  const errors: { name: string; res: Response | Error; status: number; code: string; message: RegExp }[] = [
    { name: 'pinned error body', res: json(400, { error: { code: 'invalid_argument', message: 'role is required' } }), status: 400, code: 'invalid_argument', message: /^role is required$/ },
    { name: 'non-JSON 502 from a proxy', res: new Response('<html>bad gateway</html>', { status: 502 }), status: 502, code: 'http_502', message: /could not complete/ },
    { name: 'network failure', res: new TypeError('Failed to fetch'), status: 0, code: 'network', message: /Cannot reach the server/ },
    { name: '404 with the pinned body', res: json(404, { error: { code: 'not_found', message: 'interview not found' } }), status: 404, code: 'not_found', message: /interview not found/ },
  ];
  for (const c of errors) {
    it(`raises ApiError for ${c.name}`, async () => {
      const f = fakeFetch([c.res]);
      const err = await createApi(f.fn)
        .start({ candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3 })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(c.status);
      expect(err.code).toBe(c.code);
      expect(err.message).toMatch(c.message);
    });
  }

  it('me() answers null on 401 and the user otherwise', async () => {
    const f = fakeFetch([json(401, { error: { code: 'unauthenticated', message: 'sign in' } }), json(200, { user: { _id: 'u1', fullName: 'Ada', email: 'a@b.c' } })]);
    const api = createApi(f.fn);
    expect(await api.me()).toBeNull();
    expect(await api.me()).toEqual({ _id: 'u1', fullName: 'Ada', email: 'a@b.c', hasPassword: false });
  });

  it('me() says whether the account has a password', async () => {
    const f = fakeFetch([json(200, { user: { _id: 'u1', fullName: 'Ada', email: 'a@b.c', hasPassword: true } })]);
    expect((await createApi(f.fn).me())?.hasPassword).toBe(true);
  });

  it('reads config with defaults for missing fields', async () => {
    const f = fakeFetch([json(200, { googleClientId: '', voice: { transcribe: true }, mode: 'offline', roleFamilies: ['backend engineering', 7], fallbackFamily: 'backend engineering' })]);
    expect(await createApi(f.fn).config()).toEqual({
      googleClientId: '',
      voice: { transcribe: true, speech: false },
      mode: 'offline',
      roleFamilies: ['backend engineering'],
      fallbackFamily: 'backend engineering',
    });
  });

  it('start posts the setup and returns the first question', async () => {
    const f = fakeFetch([json(201, { sessionId: 's9', welcome: 'Hi', question: { id: 'q1', text: 'Tell me about yourself.' }, mode: 'offline' })]);
    const setup = { candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3 };
    const s = await createApi(f.fn).start(setup);
    expect(f.seen[0].body).toEqual(setup);
    expect(s).toEqual({ sessionId: 's9', welcome: 'Hi', question: { id: 'q1', text: 'Tell me about yourself.', kind: 'main' }, mode: 'offline' });
  });

  it('start sends the job description and follow-ups when given', async () => {
    const f = fakeFetch([json(201, { sessionId: 's9', welcome: 'Hi', question: { id: 'q1', text: 'Q?' } })]);
    const setup = { candidateName: 'Ada', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3, jobDescription: '- Go', followUps: 2 };
    await createApi(f.fn).start(setup);
    expect(f.seen[0].body).toEqual(setup);
  });

  it('escapes the interview id in the path', async () => {
    const f = fakeFetch([json(200, { sessionId: 'a/b', status: 'in_progress' })]);
    await createApi(f.fn).session('a/b');
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
    const err = await createApi(f.fn).speech('Hello.').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
  });

  it('asks for a history page with limit and before', async () => {
    const f = fakeFetch([json(200, []), json(200, [])]);
    const api = createApi(f.fn);
    await api.history();
    await api.history({ limit: 20, before: '2026-03-01T12:00:00.123456Z' });
    expect(f.seen[0].url).toBe('/api/interview/history');
    expect(f.seen[1].url).toBe('/api/interview/history?limit=20&before=2026-03-01T12%3A00%3A00.123456Z');
  });

  it('lists interviews in progress and discards one', async () => {
    const f = fakeFetch([
      json(200, [{ _id: 'i/1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 5, questionNumber: 2, followUp: true, createdAt: '2026-03-01T12:00:00Z' }]),
      json(204, null),
    ]);
    const api = createApi(f.fn);
    expect(await api.active()).toEqual([
      { _id: 'i/1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 5, questionNumber: 2, followUp: true, createdAt: '2026-03-01T12:00:00Z' },
    ]);
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
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
    expect(err.message).toBe('You have sent many answers in a short time. You can send this one in 40 seconds.');
  });

  it('a wrong password on the account page is 403, not a lost session', async () => {
    const f = fakeFetch([json(403, { error: { code: 'permission_denied', message: 'the current password is incorrect' } })]);
    const err = await createApi(f.fn)
      .changePassword('wrong', 'new secret')
      .catch((e) => e);
    expect(err.status).toBe(403);
    expect(err.message).toBe('the current password is incorrect');
  });

  it('history keeps the pinned fields', async () => {
    const f = fakeFetch([
      json(200, [{ _id: 'i1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3, overallScore: 81, technicalAccuracy: 85, communicationScore: 72, date: '2025-01-02T03:04:05Z' }]),
    ]);
    expect(await createApi(f.fn).history()).toEqual([
      { _id: 'i1', role: 'Backend', experience: 'Senior', difficulty: 'hard', totalQuestions: 3, overallScore: 81, technicalAccuracy: 85, communicationScore: 72, date: '2025-01-02T03:04:05Z' },
    ]);
  });
});

describe('toSession', () => {
  it('reads an interview in progress', () => {
    const s = toSession({
      sessionId: 's1',
      status: 'in_progress',
      role: 'Backend',
      totalQuestions: 3,
      currentQuestion: { id: 'q2', text: 'Second?' },
      questionResults: [{ question: { id: 'q1', text: 'First?' }, answer: 'a', evaluation: { score: 60 } }],
    });
    expect(s.status).toBe('in_progress');
    expect(s.currentQuestion).toEqual({ id: 'q2', text: 'Second?', kind: 'main' });
    expect(s.results).toHaveLength(1);
    expect(s.results[0].evaluation.score).toBe(60);
    expect(s.results[0].retry).toBeNull();
    expect(s.report).toBeNull();
    expect(s.requirements).toEqual([]);
    expect(s.shared).toBe(false);
  });

  it('reads follow-ups, second tries, requirements and sharing', () => {
    const s = toSession({
      sessionId: 's1',
      status: 'in_progress',
      requirements: ['Go', 7],
      shared: true,
      currentQuestion: { id: 'q1-f1', text: 'And?', kind: 'followUp', parentId: 'q1' },
      questionResults: [{ question: { id: 'q1', text: 'First?', kind: 'main' }, answer: 'a', evaluation: { score: 60 }, retry: { answer: 'b', evaluation: { score: 70 } } }],
    });
    expect(s.currentQuestion).toEqual({ id: 'q1-f1', text: 'And?', kind: 'followUp', parentId: 'q1' });
    expect(s.results[0].retry).toEqual({ answer: 'b', evaluation: expect.objectContaining({ score: 70 }) });
    expect(s.requirements).toEqual(['Go']);
    expect(s.shared).toBe(true);
  });

  it('reads a completed interview with its report', () => {
    const s = toSession({ _id: 's1', status: 'completed', report: { overallScore: 77, strengths: ['x'] }, questionResults: [] });
    expect(s.status).toBe('completed');
    expect(s.currentQuestion).toBeNull();
    expect(s.report?.overallScore).toBe(77);
  });
});

describe('scores the server did not give', () => {
  it('stay null, never 0', () => {
    const r = toReport({ overallScore: null, technicalAccuracy: null, communicationScore: null, questions: 1, scoredQuestions: 0, questionResults: [] });
    expect([r.overallScore, r.technicalAccuracy, r.communicationScore, r.scoredQuestions, r.questions]).toEqual([null, null, null, 0, 1]);
  });
});
