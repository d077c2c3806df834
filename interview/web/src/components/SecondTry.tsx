import { useState } from 'react';
import { api } from '../api';
import { ApiError, type Attempt, type Question, type QuestionResult } from '../api/types';
import { secondTryNote } from '../practice';
import { EvaluationView } from './EvaluationView';

// A second try at the question just evaluated: once, right after its
// feedback. Both answers are kept; the report counts the better one, and
// an answer with nothing to score is never the better one.
export function SecondTry({
  sessionId,
  result,
  allowed,
  onTried,
}: {
  sessionId: string;
  result: QuestionResult;
  allowed: boolean;
  /** next is the question now being asked (see Retried.nextQuestion). */
  onTried: (retry: Attempt, next: Question | null) => void;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  if (result.retry) {
    return (
      <section className="second-try" aria-labelledby="second-try-title">
        <h3 id="second-try-title">Your second try</h3>
        <p className="score-change" role="status">
          {secondTryNote(result.evaluation, result.retry.evaluation)} The better of your two answers counts.
        </p>
        <details>
          <summary>Your first answer</summary>
          <p className="answer">{result.answer}</p>
        </details>
        <p className="answer">
          <strong>Second answer:</strong> {result.retry.answer}
        </p>
        <EvaluationView evaluation={result.retry.evaluation} answer={result.retry.answer} />
      </section>
    );
  }
  if (!allowed) return null;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy || !text.trim()) return;
    setBusy(true);
    setError('');
    try {
      const r = await api.retry(sessionId, result.question.id, text.trim());
      onTried({ answer: text.trim(), evaluation: r.evaluation }, r.nextQuestion);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Your second try could not be sent. It is still in the box; try again.');
    } finally {
      setBusy(false);
    }
  }

  if (!open) {
    return (
      <p className="second-try-offer">
        <button type="button" onClick={() => setOpen(true)}>
          Try this question again
        </button>{' '}
        <span className="hint">Once, now: the better of your two answers counts.</span>
      </p>
    );
  }
  return (
    <form className="second-try" onSubmit={submit} aria-labelledby="second-try-title">
      <h3 id="second-try-title">Your second try</h3>
      <label htmlFor="second-try-answer">Answer the same question again, using the feedback above</label>
      <textarea id="second-try-answer" rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="second-try-actions">
        <button type="submit" className="primary" disabled={busy || !text.trim()}>
          {busy ? 'Evaluating your second try…' : 'Submit second try'}
        </button>
        <button type="button" onClick={() => setOpen(false)} disabled={busy}>
          Cancel
        </button>
      </p>
    </form>
  );
}
