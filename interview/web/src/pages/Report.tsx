import { api } from '../api';
import { freshReports } from '../handoff';
import { useLoad } from '../load';
import { link } from '../router';
import { readIntegrity, warningText } from '../anticheat';
import { ReportView } from '../components/ReportView';
import { SharePanel } from '../components/SharePanel';
import { LoadFailed } from '../components/LoadFailed';
import { count } from '../practice';

export function ReportPage({ id }: { id: string }) {
  const loaded = useLoad((signal) => api.session(id, signal), [id]);
  const session = loaded.data;
  // A report just written by finishing shows at once; the stored one once
  // the interview has loaded.
  const report = freshReports.get(id) ?? session?.report ?? null;
  const integrity = readIntegrity(id);

  if (loaded.error && !report) {
    return (
      <LoadFailed
        title="Report not available"
        error={loaded.error}
        fallback="The report could not load."
        notFound="This report does not exist or belongs to another account."
        onRetry={loaded.retry}
      />
    );
  }
  if (session && !report) {
    return (
      <section>
        <h1>Report not available</h1>
        <p className="error" role="alert">
          This interview is not finished yet.
        </p>
        {session.status === 'in_progress' && (
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
            {session.candidateName} · {session.experience} · {session.difficulty} · {count(report.questions, 'question')}
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

      {session && <SharePanel id={id} shared={session.shared} />}

      <section aria-labelledby="integrity-title" className="card">
        <h2 id="integrity-title">Integrity warnings</h2>
        {integrity ? (
          <>
            <p>
              <strong>{integrity.count}</strong> {integrity.count === 1 ? 'warning' : 'warnings'} during this interview.
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
