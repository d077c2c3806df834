// The client of the interview HTTP API (paths and fields as docs/api.md
// pins them). Every call goes through send(): error bodies
// {"error": {"code", "message"}} become one ApiError type the pages show,
// every body is read by decode.ts, and a 401 on a call that needs a session
// is reported once, to onSessionLost, so no page handles it.
import * as decode from './decode';
import {
  ApiError,
  type ActiveItem,
  type AlreadyEvaluating,
  type Config,
  type Evaluated,
  type HistoryItem,
  type HistoryPage,
  type QuestionFamilies,
  type Report,
  type Retried,
  type Session,
  type Setup,
  type ShareLink,
  type SharedReport,
  type Started,
  type User,
} from './types';

export const alreadyEvaluatingMessage =
  'This answer is already being evaluated. Wait a moment; the result will appear when it is ready.';

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
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON: the fallback message.
  }
  const e = decode.errorBody(body);
  return new ApiError(res.status, e?.code || `http_${res.status}`, e?.message || fallbackMessage(res.status));
}

/** The body of a successful response, read by decoder: JSON that is not
 * what docs/api.md pins is an ApiError "bad_response" naming the field. */
async function readBody<T>(res: Response, decoder: (body: unknown) => T): Promise<T> {
  let body: unknown;
  try {
    body = res.status === 204 ? null : await res.json();
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(res.status, 'bad_response', 'The server sent a response that is not JSON. Reload the page and try again.');
  }
  try {
    return decoder(body);
  } catch (err) {
    if (!(err instanceof decode.DecodeError)) throw err;
    throw new ApiError(res.status, 'bad_response', `The server sent a response this page cannot read (${err.message}). Reload the page and try again.`);
  }
}

export interface Api {
  config(signal?: AbortSignal): Promise<Config>;
  /** The signed-in user; null when nobody is (a 401 here is not a lost session). */
  me(signal?: AbortSignal): Promise<User | null>;
  register(fullName: string, email: string, password: string): Promise<User>;
  login(email: string, password: string): Promise<User>;
  google(credential: string): Promise<User>;
  logout(): Promise<void>;
  start(setup: Setup): Promise<Started>;
  session(id: string, signal?: AbortSignal): Promise<Session>;
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
  shared(token: string, signal?: AbortSignal): Promise<SharedReport>;
  history(page?: HistoryPage, signal?: AbortSignal): Promise<HistoryItem[]>;
  active(signal?: AbortSignal): Promise<ActiveItem[]>;
  /** Which question families an interview for role would draw from. */
  families(role: string, signal?: AbortSignal): Promise<QuestionFamilies>;
  discard(id: string): Promise<void>;
  changePassword(currentPassword: string, newPassword: string): Promise<void>;
  logoutAll(): Promise<void>;
  deleteAccount(password: string): Promise<void>;
  transcribe(audio: Blob, filename: string): Promise<string>;
  speech(text: string, signal?: AbortSignal): Promise<Blob>;
}

interface Call {
  body?: unknown;
  signal?: AbortSignal;
  /** The call needs no session, or its 401 means something else (wrong
   * credentials, nobody signed in yet): not a lost session. */
  public?: boolean;
}

/** createApi returns the client. onSessionLost is called on every 401 of a
 * call that needs a session: the session expired or was revoked. */
export function createApi(fetchFn: FetchLike = (i, init) => fetch(i, init), onSessionLost: () => void = () => {}): Api {
  // The response, whatever its status; a network failure is an ApiError
  // (status 0), an abort stays an AbortError.
  async function send(method: string, path: string, call: Call = {}): Promise<Response> {
    const init: RequestInit = { method, credentials: 'same-origin', signal: call.signal, headers: { Accept: 'application/json' } };
    if (call.body instanceof FormData) {
      init.body = call.body;
    } else if (call.body !== undefined) {
      init.headers = { ...init.headers, 'Content-Type': 'application/json' };
      init.body = JSON.stringify(call.body);
    }
    let res: Response;
    try {
      res = await fetchFn(path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection and try again.');
    }
    if (res.status === 401 && !call.public) onSessionLost();
    return res;
  }

  // A call whose success is a body read by decoder (or a 204, decoded as null).
  async function request<T>(method: string, path: string, decoder: (body: unknown) => T, call: Call = {}): Promise<T> {
    const res = await send(method, path, call);
    if (!res.ok) throw await errorFrom(res);
    return readBody(res, decoder);
  }

  const one =
    <T>(read: (f: decode.Fields) => T) =>
    (body: unknown) =>
      decode.decode(body, read);
  const none = () => undefined;
  const id = (s: string) => encodeURIComponent(s);

  return {
    config: (signal) => request('GET', '/api/config', one(decode.config), { signal, public: true }),
    async me(signal) {
      try {
        return await request('GET', '/api/auth/me', one(decode.user), { signal, public: true });
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    register: (fullName, email, password) => request('POST', '/api/auth/register', one(decode.user), { body: { fullName, email, password }, public: true }),
    login: (email, password) => request('POST', '/api/auth/login', one(decode.user), { body: { email, password }, public: true }),
    google: (credential) => request('POST', '/api/auth/google', one(decode.user), { body: { credential }, public: true }),
    logout: () => request('POST', '/api/auth/logout', none, { public: true }),
    start: (setup) => request('POST', '/api/interview/start', one(decode.started), { body: setup }),
    session: (sid, signal) => request('GET', `/api/interview/${id(sid)}`, one(decode.session), { signal }),
    async answer(sessionId, questionId, answer, recordingSeconds) {
      const body: Record<string, unknown> = { sessionId, questionId, answer };
      if (recordingSeconds !== undefined && recordingSeconds > 0) body.recordingSeconds = Math.min(3600, Math.max(1, Math.round(recordingSeconds * 10) / 10));
      const res = await send('POST', '/api/interview/answer', { body });
      if (res.status === 409) {
        // Not a failure: an earlier submission owns the claim and its result
        // will land; the page says so instead of showing an error.
        return { kind: 'already-evaluating', message: alreadyEvaluatingMessage };
      }
      if (!res.ok) throw await errorFrom(res);
      return readBody(res, one(decode.evaluated));
    },
    retry: (sessionId, questionId, answer) => request('POST', '/api/interview/retry', one(decode.retried), { body: { sessionId, questionId, answer } }),
    finish: (sessionId) => request('POST', '/api/interview/finish', one(decode.report), { body: { sessionId } }),
    share: (sid) => request('POST', `/api/interview/${id(sid)}/share`, one(decode.shareLink)),
    unshare: (sid) => request('DELETE', `/api/interview/${id(sid)}/share`, none),
    shared: (token, signal) => request('GET', `/api/shared/${id(token)}`, one(decode.sharedReport), { signal, public: true }),
    history(page = {}, signal) {
      const q = new URLSearchParams();
      if (page.limit) q.set('limit', String(page.limit));
      if (page.before) q.set('before', page.before);
      const qs = q.toString();
      return request('GET', qs ? `/api/interview/history?${qs}` : '/api/interview/history', (b) => decode.list(b, decode.historyItem), { signal });
    },
    active: (signal) => request('GET', '/api/interview/active', (b) => decode.list(b, decode.activeItem), { signal }),
    families: (role, signal) => request('GET', `/api/interview/families?role=${encodeURIComponent(role)}`, one(decode.questionFamilies), { signal }),
    discard: (sid) => request('DELETE', `/api/interview/${id(sid)}`, none),
    changePassword: (currentPassword, newPassword) => request('POST', '/api/auth/password', none, { body: { currentPassword, newPassword } }),
    logoutAll: () => request('POST', '/api/auth/logout-all', none),
    deleteAccount: (password) => request('DELETE', '/api/auth/me', none, { body: password ? { password } : undefined }),
    transcribe(audio, filename) {
      const form = new FormData();
      form.append('file', audio, filename);
      return request('POST', '/api/voice/transcribe', one(decode.transcript), { body: form });
    },
    async speech(text, signal) {
      const res = await send('POST', '/api/voice/speech', { body: { text }, signal });
      if (!res.ok) throw await errorFrom(res);
      return res.blob();
    },
  };
}
