import { useEffect, useState } from 'react';
import { api } from '../client';
import { ApiError, type SharedReport } from '../api';
import { ReportView } from '../components/ReportView';
import { mainsAnswered } from '../practice';

// A report opened by its share link: read-only, no account needed, written
// for the person it was shared with (a mentor, a friend). It shows what
// the share panel promises, the report, and nothing that names or leads to
// the person who took it.
export function SharedPage({ token }: { token: string }) {
  const [shared, setShared] = useState<SharedReport | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    api
      .shared(token)
      .then((s) => live && setShared(s))
      .catch((err) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 404) setError('This link does not exist or was withdrawn by the person who shared it.');
        else setError(err instanceof ApiError ? err.message : 'The report could not load.');
      });
    return () => {
      live = false;
    };
  }, [token]);

  if (error) {
    return (
      <section>
        <h1>Shared report not available</h1>
        <p className="error" role="alert">
          {error}
        </p>
      </section>
    );
  }
  if (!shared) return <p role="status">Loading the report…</p>;

  const date = shared.completedAt ? new Date(shared.completedAt) : null;
  const { report } = shared;
  return (
    <article className="report shared">
      <header className="report-head">
        <h1>Interview report{shared.role ? `: ${shared.role}` : ''}</h1>
        <p className="sub">
          {shared.experience} · {shared.difficulty} · {mainsAnswered(report.questionResults)} questions
          {date && !Number.isNaN(date.getTime()) && ` · ${date.toLocaleString()}`}
        </p>
        <p className="notice">
          A read-only copy of a practice interview report, shared with you by the candidate who took it. It shows their answers and the feedback on each; they can withdraw this link at any time.
        </p>
        <p className="no-print">
          <button type="button" onClick={() => window.print()}>
            Print or save as PDF
          </button>
        </p>
      </header>
      <ReportView report={report} reader="guest" />
    </article>
  );
}
