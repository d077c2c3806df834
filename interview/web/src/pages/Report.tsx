import { useEffect, useState } from 'react';
import { api, freshReports, link } from '../App';
import { ApiError, type Report, type Session } from '../api';
import { readIntegrity, warningText } from '../anticheat';
import { ScoreChart } from '../components/ScoreChart';
import { EvaluationView } from '../components/EvaluationView';

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
            {session.candidateName} · {session.experience} · {session.difficulty} · {report.questionResults.length} questions
            {date && !Number.isNaN(date.getTime()) && ` · ${date.toLocaleString()}`}
          </p>
        )}
        <p className="no-print">
          <button type="button" onClick={() => window.print()}>
            Print or save as PDF
          </button>
        </p>
      </header>

      <section aria-labelledby="scores-title" className="card">
        <h2 id="scores-title">Scores</h2>
        <p className="overall">
          Overall score: <strong>{report.overallScore}</strong>/100
        </p>
        <ScoreChart
          title="Scores out of 100"
          bars={[
            { label: 'Overall', value: report.overallScore },
            { label: 'Technical accuracy', value: report.technicalAccuracy },
            { label: 'Communication', value: report.communicationScore },
          ]}
        />
        {report.feedback && <p>{report.feedback}</p>}
      </section>

      <div className="columns">
        <ListCard title="Strengths" items={report.strengths} />
        <ListCard title="Weaknesses" items={report.weaknesses} />
        <ListCard title="Suggested topics" items={report.suggestedTopics} />
      </div>

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

      <section aria-labelledby="questions-title">
        <h2 id="questions-title">Question by question</h2>
        <ol className="results">
          {report.questionResults.map((r, i) => (
            <li key={r.question.id || i} className="card">
              <h3>
                Question {i + 1}: {r.question.text}
              </h3>
              <p className="answer">
                <strong>Your answer:</strong> {r.answer}
              </p>
              <EvaluationView evaluation={r.evaluation} />
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}

function ListCard({ title, items }: { title: string; items: string[] }) {
  return (
    <section className="card">
      <h2>{title}</h2>
      {items.length ? (
        <ul>
          {items.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ul>
      ) : (
        <p className="hint">None noted.</p>
      )}
    </section>
  );
}
