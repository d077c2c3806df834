import { useEffect, useState } from 'react';
import { api, link } from '../App';
import { ApiError, type HistoryItem } from '../api';

export function HistoryPage({ onAuthLost }: { onAuthLost: () => void }) {
  const [items, setItems] = useState<HistoryItem[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    api
      .history()
      .then((list) => {
        if (!live) return;
        // Newest first even if the server's order changes.
        setItems([...list].sort((a, b) => Date.parse(b.date) - Date.parse(a.date)));
      })
      .catch((err) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 401) return onAuthLost();
        setError(err instanceof ApiError ? err.message : 'The history could not load.');
      });
    return () => {
      live = false;
    };
  }, [onAuthLost]);

  return (
    <section>
      <h1>Your completed interviews</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!items && !error && <p role="status">Loading…</p>}
      {items && items.length === 0 && (
        <p>
          No completed interviews yet.{' '}
          <a href="/" onClick={link('/')}>
            Start one
          </a>
          .
        </p>
      )}
      {items && items.length > 0 && (
        <ul className="history">
          {items.map((h) => {
            const d = new Date(h.date);
            const to = `/report/${encodeURIComponent(h._id)}`;
            return (
              <li key={h._id} className="card">
                <a href={to} onClick={link(to)}>
                  <span className="h-role">{h.role}</span>
                  <span className="h-meta">
                    {h.experience} · {h.difficulty} · {h.totalQuestions} questions
                  </span>
                  <span className="h-date">{Number.isNaN(d.getTime()) ? h.date : d.toLocaleString()}</span>
                  <span className="h-score" aria-label={`Overall score ${h.overallScore} out of 100`}>
                    {h.overallScore}
                    <small>/100</small>
                  </span>
                  <span className="h-open">Open report</span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
