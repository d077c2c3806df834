import { useEffect, useState } from 'react';
import { api, freshReports } from '../client';
import { link } from '../router';
import { ApiError, type Report, type Session } from '../api';
import { readIntegrity, warningText } from '../anticheat';
import { ReportView } from '../components/ReportView';
import { SharePanel } from '../components/SharePanel';
import { mainsAnswered } from '../practice';

export function ReportPage({ id, onAuthLost }: { id: string; onAuthLost: () => void }) {
  const [session, setSession] = useState<Session | null>(null);
  const [report, setReport] = useState<Report | null>(() => freshReports.get(id) ?? null);
  const [error, setError] = useState('');
  const integrity = readIntegrity(id);

  useEffect(() => {
    let live = true;
    api
      .session(id)
      .then((s) => {
        if (!live) return;
        setSession(s);
        if (s.report) setReport((r) => r ?? s.report);
        else if (!freshReports.has(id)) setError('This interview is not finished yet.');
      })
      .catch((err) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 401) return onAuthLost();
        setError(err instanceof ApiError && err.status === 404 ? 'This report does not exist or belongs to another account.' : err instanceof ApiError ? err.message : 'The report could not load.');
      });
    return () => {
      live = false;
    };
  }, [id, onAuthLost]);

  if (error && !report) {
    return (
      <section>
        <h1>Report not available</h1>
        <p className="error" role="alert">
          {error}
        </p>
        {session?.status === 'in_progress' && (
          <p>
            <a href={`/interview/${encodeURIComponent(id)}`} onClick={link(`/interview/${encodeURIComponent(id)}`)}>
              Continue the interview
            </a>
          </p>
        )}
      </section>
    );
  }
  if (!report) return <p role="status">Loading the report…</p>;

  const date = session?.completedAt ? new Date(session.completedAt) : null;
  return (
    <article className="report">
      <header className="report-head">
        <h1>Interview report{session?.role ? `: ${session.role}` : ''}</h1>
        {session && (
          <p className="sub">
            {session.candidateName} · {session.experience} · {session.difficulty} · {mainsAnswered(report.questionResults)} questions
            {date && !Number.isNaN(date.getTime()) && ` · ${date.toLocaleString()}`}
          </p>
        )}
        <p className="no-print">
          <button type="button" onClick={() => window.print()}>
            Print or save as PDF
          </button>
        </p>
      </header>

      <ReportView report={report} />

      {session && <SharePanel id={id} shared={session.shared} onAuthLost={onAuthLost} />}

      <section aria-labelledby="integrity-title" className="card">
        <h2 id="integrity-title">Integrity warnings</h2>
        {integrity ? (
          <>
            <p>
              <strong>{integrity.count}</strong> warning{integrity.count === 1 ? '' : 's'} during this interview.
            </p>
            {integrity.warnings.length > 0 && (
              <ul>
                {integrity.warnings.map((w, i) => (
                  <li key={i}>
                    {new Date(w.at).toLocaleTimeString()}: {warningText[w.kind] ?? w.kind}
                  </li>
                ))}
              </ul>
            )}
          </>
        ) : (
          <p>No warnings recorded in this browser tab.</p>
        )}
        <p className="hint">These checks ran only in the browser where the interview was taken; the server cannot enforce or verify them.</p>
      </section>
    </article>
  );
}
