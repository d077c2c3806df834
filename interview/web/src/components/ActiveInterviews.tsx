import { useEffect, useState } from 'react';
import { api } from '../client';
import { link } from '../router';
import { ApiError, type ActiveItem } from '../api';

// The interviews in progress, to resume or discard. The server caps how
// many one may have at once; this list is how nobody is locked out by it.
export function ActiveInterviews({ onAuthLost, onDiscarded }: { onAuthLost: () => void; onDiscarded?: () => void }) {
  const [items, setItems] = useState<ActiveItem[] | null>(null);
  const [error, setError] = useState('');
  const [confirming, setConfirming] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api
      .active()
      .then((list) => live && setItems(list))
      .catch((err) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 401) return onAuthLost();
        setError(err instanceof ApiError ? err.message : 'Your interviews in progress could not load.');
      });
    return () => {
      live = false;
    };
  }, [onAuthLost]);

  async function discard(id: string) {
    setBusy(true);
    setError('');
    try {
      await api.discard(id);
      setItems((list) => (list ?? []).filter((a) => a._id !== id));
      setConfirming('');
      onDiscarded?.();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onAuthLost();
      setError(err instanceof ApiError ? err.message : 'The interview could not be discarded. Try again.');
    } finally {
      setBusy(false);
    }
  }

  if (!error && (!items || items.length === 0)) return null;
  return (
    <section className="card" aria-labelledby="active-title">
      <h2 id="active-title">Interviews in progress</h2>
      <p className="hint">Only a few interviews can be in progress at once. Resume one, or discard one you will not finish to make room.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {items && items.length > 0 && (
        <ul className="active-list">
          {items.map((a) => {
            const to = `/interview/${encodeURIComponent(a._id)}`;
            const started = new Date(a.createdAt);
            const where =
              a.questionNumber === 0
                ? `All ${a.totalQuestions} answered, ready to finish`
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
