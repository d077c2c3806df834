import { useState } from 'react';
import { api } from '../api';
import { link } from '../router';
import { ApiError } from '../api/types';
import { useLoad } from '../load';
import { loadFailure } from './LoadFailed';
import { count } from '../practice';

// The interviews in progress, to resume or discard. The server caps how
// many one may have at once; this list is how nobody is locked out by it.
// maxInProgress is the server's cap (0: none).
export function ActiveInterviews({ maxInProgress, onDiscarded }: { maxInProgress: number; onDiscarded?: () => void }) {
  const loaded = useLoad((signal) => api.active(signal), []);
  const items = loaded.data;
  const [actionError, setError] = useState('');
  const error = loaded.error ? loadFailure(loaded.error, 'Your interviews in progress could not load.') : actionError;
  const [confirming, setConfirming] = useState('');
  const [busy, setBusy] = useState(false);

  async function discard(id: string) {
    setBusy(true);
    setError('');
    try {
      await api.discard(id);
      loaded.update((list) => (list ?? []).filter((a) => a._id !== id));
      setConfirming('');
      onDiscarded?.();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The interview could not be discarded. Try again.');
    } finally {
      setBusy(false);
    }
  }

  if (!error && (!items || items.length === 0)) return null;
  return (
    <section className="card" aria-labelledby="active-title">
      <h2 id="active-title">Interviews in progress</h2>
      <p className="hint">
        {maxInProgress > 0 ? `Up to ${count(maxInProgress, 'interview')} can be in progress at once.` : 'Interviews you have not finished stay here.'} Resume one, or discard one you
        will not finish{maxInProgress > 0 ? ' to make room' : ''}.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {loaded.error !== null && (
        <p>
          <button type="button" onClick={loaded.retry}>
            Try again
          </button>
        </p>
      )}
      {items && items.length > 0 && (
        <ul className="active-list">
          {items.map((a) => {
            const to = `/interview/${encodeURIComponent(a._id)}`;
            const started = new Date(a.createdAt);
            const where =
              a.questionNumber === 0
                ? `${a.totalQuestions === 1 ? 'Answered' : `All ${a.totalQuestions} answered`}, ready to finish`
                : a.followUp
                  ? `Follow-up to question ${a.questionNumber} of ${a.totalQuestions}`
                  : `Question ${a.questionNumber} of ${a.totalQuestions}`;
            return (
              <li key={a._id}>
                <span className="a-what">
                  <strong>{a.role}</strong>
                  <span className="a-meta">
                    {where} · {a.difficulty} · started {Number.isNaN(started.getTime()) ? a.createdAt : started.toLocaleString()}
                  </span>
                </span>
                {confirming === a._id ? (
                  <span className="a-actions" role="group" aria-label={`Discard the ${a.role} interview?`}>
                    <span>Delete it and its answers?</span>
                    <button type="button" className="danger" onClick={() => discard(a._id)} disabled={busy}>
                      Discard
                    </button>
                    <button type="button" onClick={() => setConfirming('')} disabled={busy}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <span className="a-actions">
                    <a href={to} onClick={link(to)}>
                      Resume
                    </a>
                    <button type="button" onClick={() => setConfirming(a._id)} aria-label={`Discard the ${a.role} interview`}>
                      Discard…
                    </button>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
