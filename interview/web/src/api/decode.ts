// Server JSON into the types of types.ts, checked: the one place that reads
// a response body. A body of the wrong shape is a DecodeError naming the
// field (`questionResults[2].evaluation.scorable: expected true or false,
// got nothing`), never a page drawn from made-up defaults.
//
// The rules (docs/web.md, "Decoding"): every field docs/api.md
// pins must be present with its type; a field the server leaves out when
// empty (omitempty: parentId, star, delivery, retry, counted) may be
// absent; a list may be null (Go writes an empty list as null); fields this
// client does not know are ignored.
import type {
  ActiveItem,
  Attempt,
  Config,
  Delivery,
  Evaluated,
  Evaluation,
  Evidence,
  HistoryItem,
  Question,
  QuestionFamilies,
  QuestionResult,
  Report,
  Requirement,
  Retried,
  Session,
  ShareLink,
  SharedReport,
  Star,
  Started,
  User,
} from './types';

export class DecodeError extends Error {
  readonly path: string;

  constructor(path: string, problem: string) {
    super(`${path || 'the body'}: ${problem}`);
    this.name = 'DecodeError';
    this.path = path;
  }
}

function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return Number.isFinite(v) ? 'a number' : 'not a finite number';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return typeof v;
}

const fail = (path: string, want: string, v: unknown): never => {
  throw new DecodeError(path, `expected ${want}, got ${kindOf(v)}`);
};

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** One JSON object being read, and where it is in the body. */
export class Fields {
  private readonly o: Record<string, unknown>;
  readonly path: string;

  constructor(v: unknown, path: string) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) fail(path, 'an object', v);
    this.o = v as Record<string, unknown>;
    this.path = path;
  }

  has(key: string): boolean {
    return this.o[key] !== undefined && this.o[key] !== null;
  }

  raw(key: string): unknown {
    return this.o[key];
  }

  str(key: string): string {
    const v = this.o[key];
    return typeof v === 'string' ? v : fail(join(this.path, key), 'a string', v);
  }

  num(key: string): number {
    const v = this.o[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : fail(join(this.path, key), 'a number', v);
  }

  bool(key: string): boolean {
    const v = this.o[key];
    return typeof v === 'boolean' ? v : fail(join(this.path, key), 'true or false', v);
  }

  /** A string that must be one of values. */
  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const v = this.o[key];
    return values.includes(v as T) ? (v as T) : fail(join(this.path, key), values.map((x) => `"${x}"`).join(' or '), v);
  }

  obj(key: string): Fields {
    return new Fields(this.o[key], join(this.path, key));
  }

  /** A number, or null where the server has none (an unscored average). */
  numOrNull(key: string): number | null {
    return this.o[key] === null ? null : this.num(key);
  }

  /** A string, or null where the server has none (a time not yet reached). */
  strOrNull(key: string): string | null {
    return this.o[key] === null ? null : this.str(key);
  }

  /** A list of read items; null is the empty list. */
  list<T>(key: string, read: (v: unknown, path: string) => T): T[] {
    const v = this.o[key];
    if (v === null) return [];
    if (!Array.isArray(v)) return fail(join(this.path, key), 'a list', v);
    return v.map((x, i) => read(x, `${join(this.path, key)}[${i}]`));
  }

  strs(key: string): string[] {
    return this.list(key, (v, path) => (typeof v === 'string' ? v : fail(path, 'a string', v)));
  }

  /** A field the server may leave out (or send as null): null then. */
  optional<T>(key: string, read: (f: Fields) => T): T | null {
    return this.has(key) ? read(this.obj(key)) : null;
  }
}

/** Runs read over the body at the top level. */
export function decode<T>(body: unknown, read: (f: Fields) => T): T {
  return read(new Fields(body, ''));
}

function question(f: Fields): Question {
  const id = f.str('id');
  const text = f.str('text');
  if (!text) throw new DecodeError(join(f.path, 'text'), 'a question has no text');
  if (f.oneOf('kind', ['main', 'followUp'] as const) === 'followUp') return { id, text, kind: 'followUp', parentId: f.str('parentId') };
  return { id, text, kind: 'main' };
}

const questionOrNull = (f: Fields, key: string): Question | null => (f.raw(key) === null ? null : question(f.obj(key)));

function evidence(v: unknown, path: string): Evidence {
  const f = new Fields(v, path);
  return { kind: f.oneOf('kind', ['strength', 'improvement'] as const), point: f.str('point'), quote: f.str('quote') };
}

const star = (f: Fields): Star => ({ situation: f.bool('situation'), task: f.bool('task'), action: f.bool('action'), result: f.bool('result') });

function delivery(f: Fields): Delivery {
  return {
    seconds: f.num('seconds'),
    wordsPerMinute: f.num('wordsPerMinute'),
    words: f.num('words'),
    fillers: f.list('fillers', (v, path) => {
      const x = new Fields(v, path);
      return { word: x.str('word'), count: x.num('count') };
    }),
  };
}

/** An evaluation. `scorable` is required: the server always sends it;
 * `offTopic` may be absent (false), as in evaluations kept from before it. */
export function evaluation(f: Fields): Evaluation {
  return {
    scorable: f.bool('scorable'),
    offTopic: f.has('offTopic') ? f.bool('offTopic') : false,
    score: f.num('score'),
    technicalAccuracy: f.num('technicalAccuracy'),
    communication: f.num('communication'),
    feedback: f.str('feedback'),
    strengths: f.strs('strengths'),
    improvements: f.strs('improvements'),
    evidence: f.list('evidence', evidence),
    star: f.optional('star', star),
    delivery: f.optional('delivery', delivery),
  };
}

const attempt = (f: Fields): Attempt => ({ answer: f.str('answer'), evaluation: evaluation(f.obj('evaluation')) });

function result(v: unknown, path: string): QuestionResult {
  const f = new Fields(v, path);
  return {
    question: question(f.obj('question')),
    answer: f.str('answer'),
    evaluation: evaluation(f.obj('evaluation')),
    retry: f.optional('retry', attempt),
    counted: f.has('counted') ? f.oneOf('counted', ['answer', 'retry'] as const) : '',
  };
}

function requirement(v: unknown, path: string): Requirement {
  const f = new Fields(v, path);
  return { text: f.str('text'), coveredBy: f.strs('coveredBy') };
}

export function report(f: Fields): Report {
  return {
    overallScore: f.numOrNull('overallScore'),
    technicalAccuracy: f.numOrNull('technicalAccuracy'),
    communicationScore: f.numOrNull('communicationScore'),
    questions: f.num('questions'),
    scoredQuestions: f.num('scoredQuestions'),
    strengths: f.strs('strengths'),
    weaknesses: f.strs('weaknesses'),
    suggestedTopics: f.strs('suggestedTopics'),
    feedback: f.str('feedback'),
    questionResults: f.list('questionResults', result),
    requirements: f.list('requirements', requirement),
  };
}

/** GET /api/auth/me and the sign-in answers: {user}. */
export function user(body: Fields): User {
  const f = body.obj('user');
  return { _id: f.str('_id'), fullName: f.str('fullName'), email: f.str('email'), hasPassword: f.bool('hasPassword') };
}

/** The difficulty levels of GET /api/config: at least one, and the
 * default among them, or the setup form would have nothing to offer. */
function difficulties(f: Fields): { difficulties: string[]; defaultDifficulty: string } {
  const levels = f.strs('difficulties');
  if (levels.length === 0) throw new DecodeError(join(f.path, 'difficulties'), 'no difficulty level');
  const def = f.str('defaultDifficulty');
  if (!levels.includes(def)) throw new DecodeError(join(f.path, 'defaultDifficulty'), `"${def}" is not one of the difficulties`);
  return { difficulties: levels, defaultDifficulty: def };
}

/** GET /api/config. */
export function config(f: Fields): Config {
  const voice = f.obj('voice');
  const l = f.obj('limits');
  return {
    googleClientId: f.str('googleClientId'),
    voice: { transcribe: voice.bool('transcribe'), speech: voice.bool('speech') },
    mode: f.str('mode'),
    roleFamilies: f.strs('roleFamilies'),
    fallbackFamily: f.str('fallbackFamily'),
    ...difficulties(f),
    limits: {
      minQuestions: l.num('minQuestions'),
      maxQuestions: l.num('maxQuestions'),
      maxFollowUps: l.num('maxFollowUps'),
      defaultFollowUps: l.num('defaultFollowUps'),
      maxSetupText: l.num('maxSetupText'),
      minPassword: l.num('minPassword'),
      maxAnswer: l.num('maxAnswer'),
      maxJobDescription: l.num('maxJobDescription'),
      maxInProgress: l.num('maxInProgress'),
    },
  };
}

/** POST /api/interview/start. */
export const started = (f: Fields): Started => ({ sessionId: f.str('sessionId'), welcome: f.str('welcome'), question: question(f.obj('question')), mode: f.str('mode') });

/** GET /api/interview/:id. */
export function session(f: Fields): Session {
  return {
    id: f.str('sessionId'),
    status: f.oneOf('status', ['in_progress', 'completed'] as const),
    mode: f.str('mode'),
    candidateName: f.str('candidateName'),
    role: f.str('role'),
    experience: f.str('experience'),
    difficulty: f.str('difficulty'),
    totalQuestions: f.num('totalQuestions'),
    followUps: f.num('followUps'),
    currentQuestion: questionOrNull(f, 'currentQuestion'),
    answeredQuestions: f.num('answeredQuestions'),
    results: f.list('questionResults', result),
    report: f.raw('report') === null ? null : report(f.obj('report')),
    requirements: f.strs('requirements'),
    shared: f.bool('shared'),
    createdAt: f.str('createdAt'),
    completedAt: f.strOrNull('completedAt') ?? '',
  };
}

/** POST /api/interview/answer (a 200). */
export function evaluated(f: Fields): Evaluated {
  return {
    kind: 'evaluated',
    evaluation: evaluation(f.obj('evaluation')),
    nextQuestion: questionOrNull(f, 'nextQuestion'),
    isLastQuestion: f.bool('isLastQuestion'),
    answeredQuestions: f.num('answeredQuestions'),
  };
}

/** POST /api/interview/retry. */
export const retried = (f: Fields): Retried => ({ evaluation: evaluation(f.obj('evaluation')), previousScore: f.num('previousScore'), nextQuestion: questionOrNull(f, 'nextQuestion') });

/** GET /api/shared/:token: the report plus the setup it was taken with. */
export function sharedReport(f: Fields): SharedReport {
  const iv = f.obj('interview');
  return { report: report(f), role: iv.str('role'), experience: iv.str('experience'), difficulty: iv.str('difficulty'), completedAt: iv.str('completedAt') };
}

export const shareLink = (f: Fields): ShareLink => ({ token: f.str('token'), url: f.str('url') });

export const transcript = (f: Fields): string => f.str('text');

/** A body that is a list, read item by item. */
export function list<T>(body: unknown, read: (f: Fields) => T): T[] {
  if (!Array.isArray(body)) return fail('', 'a list', body);
  return body.map((v, i) => read(new Fields(v, `[${i}]`)));
}

// What a history item and an item in progress both say of an interview.
function listed(f: Fields) {
  return { _id: f.str('_id'), role: f.str('role'), experience: f.str('experience'), difficulty: f.str('difficulty'), totalQuestions: f.num('totalQuestions') };
}

/** GET /api/interview/history: one item. */
export function historyItem(f: Fields): HistoryItem {
  return {
    ...listed(f),
    overallScore: f.numOrNull('overallScore'),
    technicalAccuracy: f.numOrNull('technicalAccuracy'),
    communicationScore: f.numOrNull('communicationScore'),
    date: f.str('date'),
  };
}

/** GET /api/interview/families. */
export function questionFamilies(f: Fields): QuestionFamilies {
  return { families: f.strs('families'), general: f.bool('general') };
}

/** GET /api/interview/active: one item. */
export function activeItem(f: Fields): ActiveItem {
  return {
    ...listed(f),
    questionNumber: f.num('questionNumber'),
    followUp: f.bool('followUp'),
    createdAt: f.str('createdAt'),
  };
}

/** An error body {"error": {"code", "message"}}, or null when the body is
 * not one (a proxy's HTML page, say). */
export function errorBody(body: unknown): { code: string; message: string } | null {
  try {
    const e = new Fields(body, '').obj('error');
    return { code: e.str('code'), message: e.str('message') };
  } catch {
    return null;
  }
}
