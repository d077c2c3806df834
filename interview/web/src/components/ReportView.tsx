import type { QuestionResult, Report } from '../api';
import { countedNote, coverageText, scoreChange, threads, type Thread } from '../practice';
import { ScoreChart } from './ScoreChart';
import { EvaluationView } from './EvaluationView';

// The body of a report, shared by the report page and a shared link's
// page: scores, the interviewer's lists, the job requirements and what
// covered them, and every question with its follow-ups and second tries.
export function ReportView({ report }: { report: Report }) {
  const ts = threads(report.questionResults);
  return (
    <>
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
        {ts.some((t) => countedNote(t)) && (
          <p className="hint">Each question counts once, with its best answer: a second try or an answer completed by a follow-up counts when it scored higher.</p>
        )}
      </section>

      <div className="columns">
        <ListCard title="Strengths" items={report.strengths} />
        <ListCard title="Weaknesses" items={report.weaknesses} />
        <ListCard title="Suggested topics" items={report.suggestedTopics} />
      </div>

      {report.requirements.length > 0 && <Requirements report={report} />}

      <section aria-labelledby="questions-title">
        <h2 id="questions-title">Question by question</h2>
        <ol className="results">
          {ts.map((t) => (
            <li key={t.main.question.id || t.number} className="card">
              <ThreadView thread={t} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

function ThreadView({ thread: t }: { thread: Thread }) {
  const note = countedNote(t);
  return (
    <>
      <h3>
        Question {t.number}: {t.main.question.text}
      </h3>
      <Answers result={t.main} />
      {t.followUps.map((f, i) => (
        <div key={f.question.id || i} className="follow-up">
          <h4>
            <span className="badge">Follow-up{t.followUps.length > 1 ? ` ${i + 1}` : ''}</span> {f.question.text}
          </h4>
          <p className="hint">Evaluated together with your answer to question {t.number}.</p>
          <Answers result={f} />
        </div>
      ))}
      {note && <p className="counted">{note}</p>}
    </>
  );
}

/** An answer with its evaluation, and the second try when there is one. */
function Answers({ result: r }: { result: QuestionResult }) {
  return (
    <>
      <p className="answer">
        <strong>{r.retry ? 'Your first try:' : 'Your answer:'}</strong> {r.answer}
      </p>
      <EvaluationView evaluation={r.evaluation} />
      {r.retry && (
        <div className="second-try">
          <p className="answer">
            <strong>Your second try</strong> (score {r.retry.evaluation.score}, {scoreChange(r.evaluation.score, r.retry.evaluation.score)}): {r.retry.answer}
          </p>
          <EvaluationView evaluation={r.retry.evaluation} />
        </div>
      )}
    </>
  );
}

function Requirements({ report }: { report: Report }) {
  const covered = report.requirements.filter((r) => r.coveredBy.length > 0).length;
  return (
    <section aria-labelledby="requirements-title" className="card">
      <h2 id="requirements-title">Job requirements</h2>
      <p>
        Your answers touched <strong>{covered}</strong> of the {report.requirements.length} main requirements of the job description.
      </p>
      <ul className="requirements">
        {report.requirements.map((r, i) => (
          <li key={i} className={r.coveredBy.length > 0 ? 'covered' : 'uncovered'}>
            <span className="req-mark" aria-hidden="true">
              {r.coveredBy.length > 0 ? '\u2713' : '\u2717'}
            </span>
            <span className="req-text">{r.text}</span>
            <span className="req-by">{coverageText(r, report.questionResults)}</span>
          </li>
        ))}
      </ul>
      <p className="hint">An answer covers a requirement when it uses its words or words close in meaning; this is a word-level check, not an understanding of the answer.</p>
    </section>
  );
}

export function ListCard({ title, items }: { title: string; items: string[] }) {
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
