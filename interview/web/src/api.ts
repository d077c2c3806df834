// The client of the interview HTTP API (paths and fields as pinned in the
// design). Every call goes through request(), so error bodies
// {"error": {"code", "message"}} become one ApiError type the pages show.

export interface User {
  _id: string;
  fullName: string;
  email: string;
  /** False for an account that signs in with Google only. */
  hasPassword: boolean;
}

export interface Config {
  googleClientId: string;
  voice: { transcribe: boolean; speech: boolean };
  /** "offline" for the offline practice mode, "language-model" otherwise. */
  mode: string;
  /** The role families the offline question bank covers, and the one any
   * other role gets; empty with a language model. */
  roleFamilies: string[];
  fallbackFamily: string;
}

export interface Question {
  id: string;
  text: string;
  /** "followUp" for a follow-up question on the main question parentId. */
  kind: 'main' | 'followUp';
  parentId?: string;
}

export interface Evidence {
  kind: 'strength' | 'improvement';
  point: string;
  /** Words of the answer, checked by the server to occur in it. */
  quote: string;
}

export interface Star {
  situation: boolean;
  task: boolean;
  action: boolean;
  result: boolean;
}

export interface Delivery {
  seconds: number;
  wordsPerMinute: number;
  words: number;
  fillers: { word: string; count: number }[];
}

export interface Evaluation {
  /** False: "not enough to score" (empty, nonsense or off-topic); every score is 0. */
  scorable: boolean;
  score: number;
  technicalAccuracy: number;
  communication: number;
  feedback: string;
  strengths: string[];
  improvements: string[];
  evidence: Evidence[];
  /** Behavioural questions only. */
  star: Star | null;
  /** Spoken (dictated or recorded) answers only. */
  delivery: Delivery | null;
}

/** A second try at a question already evaluated. */
export interface Attempt {
  answer: string;
  evaluation: Evaluation;
}

export interface QuestionResult {
  question: Question;
  answer: string;
  evaluation: Evaluation;
  retry: Attempt | null;
  /** In a report: which answer of this item the averages use ("answer" or
   * "retry"); empty when another item of its main question counts. */
  counted: '' | 'answer' | 'retry';
}

/** A requirement of the job description and the questions (by id) whose
 * answers covered it. */
export interface Requirement {
  text: string;
  coveredBy: string[];
}

export interface Report {
  /** Averages over the main questions whose counted answer was scored;
   * null when none was. */
  overallScore: number | null;
  technicalAccuracy: number | null;
  communicationScore: number | null;
  /** Main questions answered, and how many of them were scored. */
  questions: number;
  scoredQuestions: number;
  strengths: string[];
  weaknesses: string[];
  suggestedTopics: string[];
  feedback: string;
  questionResults: QuestionResult[];
  requirements: Requirement[];
}

export interface Setup {
  candidateName: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** Optional pasted job description, at most maxJobDescription characters. */
  jobDescription?: string;
  /** Follow-ups per question, 0 to 2; absent: the server's default (1). */
  followUps?: number;
}

export const maxJobDescription = 10000;

export interface Started {
  sessionId: string;
  welcome: string;
  question: Question;
  mode: string;
}

/** An interview as the page needs it to resume after a reload. */
export interface Session extends Setup {
  id: string;
  status: 'in_progress' | 'completed';
  mode: string;
  welcome: string;
  currentQuestion: Question | null;
  results: QuestionResult[];
  report: Report | null;
  /** The job description's requirements, read at the start. */
  requirements: string[];
  /** A share link to the report exists. */
  shared: boolean;
  createdAt: string;
  completedAt: string;
}

/** What a share link shows: the report and the setup it was taken with. */
export interface SharedReport {
  report: Report;
  role: string;
  experience: string;
  difficulty: string;
  completedAt: string;
}

export interface ShareLink {
  token: string;
  url: string;
}

/** A second try was evaluated. */
export interface Retried {
  evaluation: Evaluation;
  previousScore: number;
  /** The question now being asked: a follow-up asked on the first try is
   * asked again of the better answer, so it may change or give way to the
   * next question (null: every question is answered). */
  nextQuestion: Question | null;
}

export interface HistoryItem {
  _id: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** null: no answer of the interview was scored. */
  overallScore: number | null;
  technicalAccuracy: number | null;
  communicationScore: number | null;
  date: string;
}

/** An interview in progress, as the list for resuming or discarding shows it. */
export interface ActiveItem {
  _id: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** The question being asked; 0 once every question is answered. */
  questionNumber: number;
  /** The question being asked is a follow-up of questionNumber. */
  followUp: boolean;
  createdAt: string;
}

/** One page of history: newest first; `before` is the date of the last
 * item of the previous page. */
export interface HistoryPage {
  limit?: number;
  before?: string;
}

/** The answer was evaluated: its evaluation and what comes next. */
export interface Evaluated {
  kind: 'evaluated';
  evaluation: Evaluation;
  nextQuestion: Question | null;
  isLastQuestion: boolean;
}

/** A 409: an earlier submission of this answer holds the claim. */
export interface AlreadyEvaluating {
  kind: 'already-evaluating';
  message: string;
}

export const alreadyEvaluatingMessage =
  'This answer is already being evaluated. Wait a moment; the result will appear when it is ready.';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

// Messages for responses whose body carries none (a proxy's 502 page, say).
function fallbackMessage(status: number): string {
  if (status === 401) return 'Please sign in again.';
  if (status === 404) return 'Not found.';
  if (status === 413) return 'The upload is too large.';
  if (status === 429) return 'Too many requests. Try again in a moment.';
  if (status >= 500) return 'The server could not complete the request. Try again.';
  return `The request failed (status ${status}).`;
}

async function errorFrom(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = fallbackMessage(res.status);
  try {
    const body = await res.json();
    if (body && typeof body === 'object' && body.error && typeof body.error === 'object') {
      if (typeof body.error.code === 'string') code = body.error.code;
      if (typeof body.error.message === 'string' && body.error.message) message = body.error.message;
    }
  } catch {
    // Not JSON: keep the fallback.
  }
  return new ApiError(res.status, code, message);
}

const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : d);
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const score = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

function toQuestion(v: unknown): Question | null {
  const o = obj(v);
  const text = str(o.text);
  if (!text) return null;
  if (o.kind === 'followUp') return { id: str(o.id), text, kind: 'followUp', parentId: str(o.parentId) };
  return { id: str(o.id), text, kind: 'main' };
}

function toEvidence(v: unknown): Evidence[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((x) => {
    const o = obj(x);
    const kind = o.kind === 'strength' || o.kind === 'improvement' ? o.kind : null;
    const point = str(o.point);
    const quote = str(o.quote);
    return kind && point && quote ? [{ kind, point, quote }] : [];
  });
}

function toStar(v: unknown): Star | null {
  if (!v || typeof v !== 'object') return null;
  const o = obj(v);
  return { situation: o.situation === true, task: o.task === true, action: o.action === true, result: o.result === true };
}

function toDelivery(v: unknown): Delivery | null {
  if (!v || typeof v !== 'object') return null;
  const o = obj(v);
  const seconds = num(o.seconds);
  if (seconds <= 0) return null;
  const fillers = Array.isArray(o.fillers)
    ? o.fillers.map((f) => ({ word: str(obj(f).word), count: num(obj(f).count) })).filter((f) => f.word && f.count > 0)
    : [];
  return { seconds, wordsPerMinute: num(o.wordsPerMinute), words: num(o.words), fillers };
}

export function toEvaluation(v: unknown): Evaluation {
  const o = obj(v);
  return {
    // Evaluations stored before the field existed were all scored.
    scorable: o.scorable !== false,
    score: num(o.score),
    technicalAccuracy: num(o.technicalAccuracy),
    communication: num(o.communication ?? o.communicationScore),
    feedback: str(o.feedback),
    strengths: strs(o.strengths),
    improvements: strs(o.improvements),
    evidence: toEvidence(o.evidence),
    star: toStar(o.star),
    delivery: toDelivery(o.delivery),
  };
}

function toResults(v: unknown): QuestionResult[] {
  if (!Array.isArray(v)) return [];
  return v.map((r) => {
    const o = obj(r);
    const retry = o.retry && typeof o.retry === 'object' ? obj(o.retry) : null;
    return {
      question: toQuestion(o.question) ?? { id: '', text: '', kind: 'main' },
      answer: str(o.answer),
      evaluation: toEvaluation(o.evaluation),
      retry: retry ? { answer: str(retry.answer), evaluation: toEvaluation(retry.evaluation) } : null,
      counted: o.counted === 'answer' || o.counted === 'retry' ? o.counted : '',
    };
  });
}

function toRequirements(v: unknown): Requirement[] {
  if (!Array.isArray(v)) return [];
  return v.map((r) => {
    const o = obj(r);
    return { text: str(o.text), coveredBy: strs(o.coveredBy) };
  });
}

export function toReport(v: unknown): Report {
  const o = obj(v);
  const questionResults = toResults(o.questionResults);
  return {
    overallScore: score(o.overallScore),
    technicalAccuracy: score(o.technicalAccuracy),
    communicationScore: score(o.communicationScore),
    questions: num(o.questions, questionResults.filter((r) => r.question.kind !== 'followUp').length),
    scoredQuestions: num(o.scoredQuestions),
    strengths: strs(o.strengths),
    weaknesses: strs(o.weaknesses),
    suggestedTopics: strs(o.suggestedTopics),
    feedback: str(o.feedback),
    questionResults,
    requirements: toRequirements(o.requirements),
  };
}

/** Reads GET /api/shared/:token. */
export function toSharedReport(v: unknown): SharedReport {
  const o = obj(v);
  const iv = obj(o.interview);
  return {
    report: toReport(o),
    role: str(iv.role),
    experience: str(iv.experience),
    difficulty: str(iv.difficulty),
    completedAt: str(iv.completedAt),
  };
}

/** Reads GET /api/interview/:id into the page's shape. */
export function toSession(v: unknown): Session {
  const o = obj(v);
  const results = toResults(o.questionResults ?? o.results);
  const reportRaw = o.report;
  const report = reportRaw && typeof reportRaw === 'object' ? toReport(reportRaw) : null;
  if (report && report.questionResults.length === 0) report.questionResults = results;
  const status = str(o.status) === 'completed' || report ? 'completed' : 'in_progress';
  return {
    id: str(o.sessionId ?? o._id ?? o.id),
    status,
    mode: str(o.mode),
    welcome: str(o.welcome),
    candidateName: str(o.candidateName),
    role: str(o.role),
    experience: str(o.experience),
    difficulty: str(o.difficulty),
    totalQuestions: num(o.totalQuestions),
    currentQuestion: status === 'completed' ? null : toQuestion(o.currentQuestion ?? o.question),
    results,
    report,
    requirements: strs(o.requirements),
    shared: o.shared === true,
    createdAt: str(o.createdAt),
    completedAt: str(o.completedAt ?? o.date),
  };
}

export interface Api {
  config(): Promise<Config>;
  me(): Promise<User | null>;
  register(fullName: string, email: string, password: string): Promise<User>;
  login(email: string, password: string): Promise<User>;
  google(credential: string): Promise<User>;
  logout(): Promise<void>;
  start(setup: Setup): Promise<Started>;
  session(id: string): Promise<Session>;
  /** recordingSeconds: how long the answer was spoken, when it was dictated or recorded. */
  answer(sessionId: string, questionId: string, answer: string, recordingSeconds?: number): Promise<Evaluated | AlreadyEvaluating>;
  /** A second try at the question just evaluated. A 409 (already tried,
   * not the last question, an answer being evaluated) is an ApiError with
   * the server's sentence. */
  retry(sessionId: string, questionId: string, answer: string): Promise<Retried>;
  finish(sessionId: string): Promise<Report>;
  share(id: string): Promise<ShareLink>;
  unshare(id: string): Promise<void>;
  /** The report a share link names; needs no session. */
  shared(token: string): Promise<SharedReport>;
  history(page?: HistoryPage): Promise<HistoryItem[]>;
  active(): Promise<ActiveItem[]>;
  discard(id: string): Promise<void>;
  changePassword(currentPassword: string, newPassword: string): Promise<void>;
  logoutAll(): Promise<void>;
  deleteAccount(password: string): Promise<void>;
  transcribe(audio: Blob, filename: string): Promise<string>;
  speech(text: string, signal?: AbortSignal): Promise<Blob>;
}

export function createApi(fetchFn: FetchLike = (i, init) => fetch(i, init)): Api {
  async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const init: RequestInit = { method, credentials: 'same-origin', signal, headers: { Accept: 'application/json' } };
    if (body instanceof FormData) {
      init.body = body;
    } else if (body !== undefined) {
      init.headers = { ...init.headers, 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetchFn(path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection and try again.');
    }
    return res;
  }

  async function json(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await send(method, path, body);
    if (!res.ok) throw await errorFrom(res);
    if (res.status === 204) return null;
    return res.json();
  }

  const user = (v: unknown): User => {
    const u = obj(obj(v).user);
    return { _id: str(u._id ?? u.id), fullName: str(u.fullName), email: str(u.email), hasPassword: u.hasPassword === true };
  };

  return {
    async config() {
      const o = obj(await json('GET', '/api/config'));
      const voice = obj(o.voice);
      return {
        googleClientId: str(o.googleClientId),
        voice: { transcribe: voice.transcribe === true, speech: voice.speech === true },
        mode: str(o.mode),
        roleFamilies: strs(o.roleFamilies),
        fallbackFamily: str(o.fallbackFamily),
      };
    },
    async me() {
      try {
        return user(await json('GET', '/api/auth/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    async register(fullName, email, password) {
      return user(await json('POST', '/api/auth/register', { fullName, email, password }));
    },
    async login(email, password) {
      return user(await json('POST', '/api/auth/login', { email, password }));
    },
    async google(credential) {
      return user(await json('POST', '/api/auth/google', { credential }));
    },
    async logout() {
      await json('POST', '/api/auth/logout');
    },
    async start(setup) {
      const o = obj(await json('POST', '/api/interview/start', setup));
      const question = toQuestion(o.question);
      if (!question) throw new ApiError(502, 'bad_response', 'The server sent no first question.');
      return { sessionId: str(o.sessionId), welcome: str(o.welcome), question, mode: str(o.mode) };
    },
    async session(id) {
      return toSession(await json('GET', `/api/interview/${encodeURIComponent(id)}`));
    },
    async answer(sessionId, questionId, answer, recordingSeconds) {
      const body: Record<string, unknown> = { sessionId, questionId, answer };
      if (recordingSeconds !== undefined && recordingSeconds > 0) body.recordingSeconds = Math.min(3600, Math.max(1, Math.round(recordingSeconds * 10) / 10));
      const res = await send('POST', '/api/interview/answer', body);
      if (res.status === 409) {
        // Not a failure: an earlier submission owns the claim and its result
        // will land; the page says so instead of showing an error.
        return { kind: 'already-evaluating', message: alreadyEvaluatingMessage };
      }
      if (!res.ok) throw await errorFrom(res);
      const o = obj(await res.json());
      return {
        kind: 'evaluated',
        evaluation: toEvaluation(o.evaluation),
        nextQuestion: toQuestion(o.nextQuestion),
        isLastQuestion: o.isLastQuestion === true,
      };
    },
    async retry(sessionId, questionId, answer) {
      const o = obj(await json('POST', '/api/interview/retry', { sessionId, questionId, answer }));
      return { evaluation: toEvaluation(o.evaluation), previousScore: num(o.previousScore), nextQuestion: toQuestion(o.nextQuestion) };
    },
    async finish(sessionId) {
      return toReport(await json('POST', '/api/interview/finish', { sessionId }));
    },
    async share(id) {
      const o = obj(await json('POST', `/api/interview/${encodeURIComponent(id)}/share`));
      return { token: str(o.token), url: str(o.url) };
    },
    async unshare(id) {
      await json('DELETE', `/api/interview/${encodeURIComponent(id)}/share`);
    },
    async shared(token) {
      return toSharedReport(await json('GET', `/api/shared/${encodeURIComponent(token)}`));
    },
    async history(page = {}) {
      const q = new URLSearchParams();
      if (page.limit) q.set('limit', String(page.limit));
      if (page.before) q.set('before', page.before);
      const qs = q.toString();
      const v = await json('GET', qs ? `/api/interview/history?${qs}` : '/api/interview/history');
      const list = Array.isArray(v) ? v : [];
      return list.map((h) => {
        const o = obj(h);
        return {
          _id: str(o._id ?? o.id),
          role: str(o.role),
          experience: str(o.experience),
          difficulty: str(o.difficulty),
          totalQuestions: num(o.totalQuestions),
          overallScore: score(o.overallScore),
          technicalAccuracy: score(o.technicalAccuracy),
          communicationScore: score(o.communicationScore),
          date: str(o.date),
        };
      });
    },
    async active() {
      const v = await json('GET', '/api/interview/active');
      return (Array.isArray(v) ? v : []).map((a) => {
        const o = obj(a);
        return {
          _id: str(o._id ?? o.id),
          role: str(o.role),
          experience: str(o.experience),
          difficulty: str(o.difficulty),
          totalQuestions: num(o.totalQuestions),
          questionNumber: num(o.questionNumber),
          followUp: o.followUp === true,
          createdAt: str(o.createdAt),
        };
      });
    },
    async discard(id) {
      await json('DELETE', `/api/interview/${encodeURIComponent(id)}`);
    },
    async changePassword(currentPassword, newPassword) {
      await json('POST', '/api/auth/password', { currentPassword, newPassword });
    },
    async logoutAll() {
      await json('POST', '/api/auth/logout-all');
    },
    async deleteAccount(password) {
      await json('DELETE', '/api/auth/me', password ? { password } : undefined);
    },
    async transcribe(audio, filename) {
      const form = new FormData();
      form.append('file', audio, filename);
      const o = obj(await json('POST', '/api/voice/transcribe', form));
      return str(o.text);
    },
    async speech(text, signal) {
      const res = await send('POST', '/api/voice/speech', { text }, signal);
      if (!res.ok) throw await errorFrom(res);
      return res.blob();
    },
  };
}
