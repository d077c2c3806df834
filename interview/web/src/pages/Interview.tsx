import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { ApiError, type Config, type Question, type QuestionResult, type Session } from '../api/types';
import { freshReports } from '../handoff';
import { useLoad } from '../load';
import { navigate } from '../router';
import { exitFullscreen, forgetFullscreen, fullscreenChosen, useIntegrity, warningText } from '../anticheat';
import { canRecord, startRecording, type Recording } from '../recorder';
import { canSpeak, speechPlayer, useServerVoice } from '../speech/useSpeech';
import { recognizerConstructor, startDictation, type Dictation } from '../speech/dictation';
import { EvaluationView } from '../components/EvaluationView';
import { SecondTry } from '../components/SecondTry';
import { LoadFailed } from '../components/LoadFailed';
import { allAnswered, canRetry, count, modeLabel, numberOf, questionLabel } from '../practice';

export function InterviewPage({ id, config }: { id: string; config: Config }) {
  const loaded = useLoad((signal) => api.session(id, signal), [id]);
  const [session, setSession] = useState<Session | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  // Main questions answered, as the server counts them.
  const [answered, setAnswered] = useState(0);
  // Every answer so far, follow-ups and second tries included: the last
  // one is the feedback shown.
  const [results, setResults] = useState<QuestionResult[]>([]);
  const [answer, setAnswer] = useState('');
  // Seconds of speech behind the answer in the box (recorded or dictated);
  // 0 for a typed answer. Sent so the evaluation can show the delivery.
  const [spokenSeconds, setSpokenSeconds] = useState(0);
  const [submitting, setSubmitting] = useState(false);
  const [finishing, setFinishing] = useState(false);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [welcome] = useState(() => sessionStorage.getItem(`welcome:${id}`) ?? '');
  const questionHeading = useRef<HTMLHeadingElement>(null);
  const inProgress = session?.status === 'in_progress';
  // Whether the candidate chose full screen: if not, nothing on the page
  // speaks of it and leaving it is never counted.
  const [chosenFullscreen] = useState(() => fullscreenChosen(id));
  const integrity = useIntegrity(id, inProgress && !finishing, chosenFullscreen);

  const fail = (err: unknown, fallback: string) => setError(err instanceof ApiError ? err.message : fallback);

  useEffect(() => {
    const s = loaded.data;
    if (!s) return;
    if (s.status === 'completed') {
      navigate(`/report/${encodeURIComponent(id)}`, { replace: true });
      return;
    }
    setSession(s);
    setQuestion(s.currentQuestion);
    setResults(s.results);
    setAnswered(s.answeredQuestions);
  }, [loaded.data, id]);

  // A new question takes the focus, so keyboard users land on it and
  // screen readers read it (the live region announces it as well).
  useEffect(() => {
    if (question) questionHeading.current?.focus();
  }, [question?.id]); // eslint-disable-line react-hooks/exhaustive-deps

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!question || submitting || !answer.trim()) return;
    setSubmitting(true);
    setError('');
    setNotice('');
    try {
      const r = await api.answer(id, question.id, answer.trim(), spokenSeconds > 0 ? spokenSeconds : undefined);
      if (r.kind === 'already-evaluating') {
        setNotice(r.message);
        return;
      }
      setResults((rs) => [...rs, { question, answer: answer.trim(), evaluation: r.evaluation, retry: null, counted: '' }]);
      setAnswered(r.answeredQuestions);
      setAnswer('');
      setSpokenSeconds(0);
      setQuestion(r.nextQuestion);
    } catch (err) {
      fail(err, 'Your answer could not be sent. It is still in the box; try again.');
    } finally {
      setSubmitting(false);
    }
  }

  function appendSpoken(text: string, seconds: number) {
    setAnswer((a) => (a.trim() ? `${a.trim()} ${text}` : text));
    if (seconds > 0) setSpokenSeconds((x) => x + seconds);
  }

  async function finish() {
    setFinishing(true);
    setError('');
    try {
      const report = await api.finish(id);
      freshReports.set(id, report);
      exitFullscreen();
      forgetFullscreen(id);
      navigate(`/report/${encodeURIComponent(id)}`, { replace: true });
    } catch (err) {
      fail(err, 'The report could not be created. Try again.');
      setFinishing(false);
    }
  }

  if (loaded.error) {
    return (
      <LoadFailed
        title="Interview not available"
        error={loaded.error}
        fallback="The interview could not load."
        notFound="This interview does not exist or belongs to another account."
        onRetry={loaded.retry}
      />
    );
  }
  if (!session) return <p role="status">Loading the interview…</p>;

  const total = session.totalQuestions;
  const label = question ? questionLabel(question, answered, total) : '';
  const last = results.at(-1);
  const lastNumber = last ? numberOf(results, last.question.id) : 0;
  const mode = modeLabel(session.mode || config.mode);
  return (
    <section className="interview">
      <h1>
        Interview: {session.role}
        <span className="sub">
          {session.candidateName} · {session.experience} · {session.difficulty}
          {mode && ` · ${mode}`}
        </span>
      </h1>
      <IntegrityBar
        chose={chosenFullscreen}
        fullscreen={integrity.fullscreen}
        count={integrity.record.count}
        last={integrity.record.warnings.at(-1)?.kind}
        onFullscreen={integrity.enterFullscreen}
      />
      {welcome && results.length === 0 && <p className="welcome">{welcome}</p>}
      {last && (
        <article className="card feedback" aria-labelledby="feedback-title">
          <h2 id="feedback-title">{last.question.kind === 'followUp' ? `Feedback on the follow-up to question ${lastNumber}` : `Feedback on question ${lastNumber}`}</h2>
          <p className="asked">{last.question.text}</p>
          {last.question.kind === 'followUp' && <p className="hint">Judged on this answer alone, with your answer to question {lastNumber} as context.</p>}
          <EvaluationView evaluation={last.evaluation} answer={last.answer} />
          <SecondTry
            key={last.question.id}
            sessionId={id}
            result={last}
            allowed={canRetry(results, inProgress && !finishing)}
            onTried={(retry, next) => {
              setResults((rs) => rs.map((r, i) => (i === rs.length - 1 ? { ...r, retry } : r)));
              // A follow-up asked on the first try may have been answered
              // by the second: the server says what is asked now.
              setQuestion(next);
            }}
          />
        </article>
      )}
      <div aria-live="polite" className="sr-only">
        {question ? `${label}: ${question.text}` : answered > 0 ? `${allAnswered(answered)}. You can finish the interview.` : ''}
      </div>
      {question ? (
        <form className={`card question${question.kind === 'followUp' ? ' follow-up-question' : ''}`} onSubmit={submit} aria-labelledby="question-title">
          <p className="progress">
            <progress max={total} value={answered} aria-label={`${answered} of ${count(total, 'question')} answered`} />
            {label}
            {question.kind === 'followUp' && <span className="badge">Does not count toward the {count(total, 'question')}</span>}
          </p>
          <h2 id="question-title" ref={questionHeading} tabIndex={-1}>
            {question.text}
          </h2>
          <ReadAloud text={question.text} config={config} />
          <label htmlFor="answer">Your answer</label>
          <textarea
            id="answer"
            name="answer"
            rows={8}
            maxLength={config.limits.maxAnswer}
            value={answer}
            onChange={(e) => {
              setAnswer(e.target.value);
              // A box emptied by hand holds nothing that was spoken.
              if (!e.target.value.trim()) setSpokenSeconds(0);
            }}
            aria-describedby="answer-hint"
          />
          <p id="answer-hint" className="hint">
            Type your answer{config.voice.transcribe || recognizerConstructor() ? ', or speak it and edit the transcript' : ''}. Submitting sends it for evaluation.
          </p>
          {config.voice.transcribe ? (
            <RecordButton onText={appendSpoken} onError={setError} />
          ) : (
            <DictateButton onText={(t) => appendSpoken(t, 0)} onSeconds={(s) => setSpokenSeconds((x) => x + s)} onError={setError} />
          )}
          {notice && (
            <p className="info" role="status">
              {notice}
            </p>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="primary" disabled={submitting || !answer.trim()} aria-disabled={submitting || !answer.trim()}>
            {submitting ? 'Evaluating your answer…' : 'Submit answer'}
          </button>
        </form>
      ) : (
        <div className="card done">
          <h2 tabIndex={-1} ref={questionHeading}>
            {allAnswered(answered)}
          </h2>
          <p>Finish the interview to get your report with scores and suggestions.</p>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button type="button" className="primary" onClick={finish} disabled={finishing}>
            {finishing ? 'Writing your report…' : 'Finish and see my report'}
          </button>
        </div>
      )}
    </section>
  );
}

function IntegrityBar({
  chose,
  fullscreen,
  count,
  last,
  onFullscreen,
}: {
  chose: boolean;
  fullscreen: boolean;
  count: number;
  last?: keyof typeof warningText;
  onFullscreen: () => void;
}) {
  return (
    <div className="integrity" role="region" aria-label="Integrity checks">
      <p>
        <strong>Integrity checks:</strong> {chose ? 'leaving full screen, switching' : 'switching'} to another tab or app and pressing Back are counted as warnings and
        shown with your report; using the keyboard on this page never is. They run only in this browser; the server cannot enforce them.
      </p>
      <p aria-live="assertive" className={count > 0 ? 'warn' : ''}>
        Warnings: {count}
        {last && count > 0 && ` — ${warningText[last]}`}
      </p>
      {chose && !fullscreen && typeof document !== 'undefined' && document.fullscreenEnabled && (
        <button type="button" onClick={onFullscreen}>
          Enter full screen
        </button>
      )}
    </div>
  );
}

function ReadAloud({ text, config }: { text: string; config: Config }) {
  const player = speechPlayer(api, config.voice.speech);
  const server = useServerVoice(player);
  const [playing, setPlaying] = useState(false);
  const [msg, setMsg] = useState('');
  useEffect(() => () => player.stop(), [player, text]);
  if (!canSpeak(config.voice.speech)) return null;

  async function toggle() {
    if (playing) {
      player.stop();
      setPlaying(false);
      return;
    }
    setPlaying(true);
    setMsg('');
    const r = await player.speak(text);
    setPlaying(false);
    if (r.outcome === 'unavailable') setMsg('Reading aloud is not available in this browser.');
  }

  return (
    <p className="speech">
      <button type="button" onClick={toggle} aria-pressed={playing}>
        {playing ? 'Stop reading' : 'Read question aloud'}
      </button>
      {server.kind !== 'on' && config.voice.speech && <span className="hint"> Using your browser's voice{server.kind === 'cooldown' ? ' for a couple of minutes' : ''}.</span>}
      {msg && <span className="hint"> {msg}</span>}
    </p>
  );
}

function RecordButton({ onText, onError }: { onText: (t: string, seconds: number) => void; onError: (m: string) => void }) {
  const [state, setState] = useState<'idle' | 'recording' | 'transcribing'>('idle');
  const rec = useRef<Recording | null>(null);
  const startedAt = useRef(0);
  useEffect(() => () => rec.current?.cancel(), []);
  if (!canRecord()) return <p className="hint">Recording is not supported in this browser; type your answer instead.</p>;

  async function toggle() {
    if (state === 'idle') {
      try {
        rec.current = await startRecording();
        startedAt.current = Date.now();
        setState('recording');
      } catch {
        onError('The microphone could not be used. Check the browser permission, or type your answer.');
      }
      return;
    }
    if (state !== 'recording' || !rec.current) return;
    setState('transcribing');
    try {
      const { blob, filename } = await rec.current.stop();
      const seconds = (Date.now() - startedAt.current) / 1000;
      rec.current = null;
      const text = await api.transcribe(blob, filename);
      if (text.trim()) onText(text.trim(), seconds);
      else onError('No speech was recognised in the recording.');
    } catch (err) {
      onError(err instanceof ApiError ? err.message : 'The recording could not be transcribed.');
    } finally {
      setState('idle');
    }
  }

  return (
    <p className="record">
      <button type="button" onClick={toggle} disabled={state === 'transcribing'} aria-pressed={state === 'recording'} className={state === 'recording' ? 'recording' : ''}>
        {state === 'idle' ? 'Record answer' : state === 'recording' ? 'Stop recording and transcribe' : 'Transcribing…'}
      </button>
      {state === 'recording' && <span role="status"> Recording… speak now.</span>}
    </p>
  );
}

// DictateButton offers the browser's own speech recognition when the server
// has no speech-to-text; where the browser has none, there is no button.
function DictateButton({ onText, onSeconds, onError }: { onText: (t: string) => void; onSeconds: (s: number) => void; onError: (m: string) => void }) {
  const [listening, setListening] = useState(false);
  const session = useRef<Dictation | null>(null);
  useEffect(() => () => session.current?.cancel(), []);
  const ctor = recognizerConstructor();
  if (!ctor) return null;

  function toggle() {
    if (listening) {
      session.current?.stop();
      return;
    }
    try {
      session.current = startDictation(
        ctor!,
        {
          onText,
          onEnd: (seconds) => {
            session.current = null;
            setListening(false);
            onSeconds(seconds);
          },
          onError,
        },
        document.documentElement.lang || navigator.language || 'en-US',
      );
      setListening(true);
    } catch {
      onError("The browser's speech recognition could not start. Type your answer instead.");
    }
  }

  return (
    <p className="record dictate">
      <button type="button" onClick={toggle} aria-pressed={listening} className={listening ? 'recording' : ''} aria-describedby="dictate-note">
        {listening ? 'Stop dictating' : 'Dictate answer'}
      </button>
      {listening && <span role="status"> Listening… speak now.</span>}
      <span id="dictate-note" className="hint">
        {' '}
        Uses your browser's speech recognition, which may send audio to the browser's vendor.
      </span>
    </p>
  );
}
