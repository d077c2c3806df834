import { api } from '../api';
import { useLoad } from '../load';
import { ReportView } from '../components/ReportView';
import { LoadFailed } from '../components/LoadFailed';
import { count } from '../practice';

// A report opened by its share link: read-only, no account needed, written
// for the person it was shared with (a mentor, a friend). It shows what
// the share panel promises, the report, and nothing that names or leads to
// the person who took it.
export function SharedPage({ token }: { token: string }) {
  const loaded = useLoad((signal) => api.shared(token, signal), [token]);
  const shared = loaded.data;

  if (loaded.error) {
    return (
      <LoadFailed
        title="Shared report not available"
        error={loaded.error}
        fallback="The report could not load."
        notFound="This link does not exist or was withdrawn by the person who shared it."
        onRetry={loaded.retry}
      />
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
          {shared.experience} · {shared.difficulty} · {count(report.questions, 'question')}
          {date && !Number.isNaN(date.getTime()) && ` · ${date.toLocaleString()}`}
        </p>
        <p className="notice">
          A read-only copy of a practice interview report, shared with you by the candidate who took it. It shows their answers and the feedback on each, which was written to them; they can withdraw this link at any time.
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
