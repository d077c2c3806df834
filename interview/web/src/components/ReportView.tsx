import type { Evaluation, QuestionResult, Report } from '../api/types';
import { count, countedNote, coverageText, threads, tryChange, Whose, type Reader, type Thread } from '../practice';
import { ScoreChart } from './ScoreChart';
import { EvaluationView } from './EvaluationView';

// The body of a report, shared by the report page and a shared link's
// page. It reads summary first: the scores and what to work on, then the
// job requirements, then every question collapsed to its score and one
// line until opened, with its follow-ups and second tries inside.
export function ReportView({ report, reader = 'candidate' }: { report: Report; reader?: Reader }) {
  const ts = threads(report.questionResults);
  const unscored = report.questions - report.scoredQuestions;
  return (
    <>
      <section aria-labelledby="scores-title" className="card report-scores">
        <h2 id="scores-title">Summary</h2>
        {report.overallScore === null ? (
          <p className="overall">
            <strong>Not scored:</strong> no answer had enough in it to score, so this interview has no overall score.
          </p>
        ) : (
          <>
            <p className="overall">
              Overall score: <strong>{report.overallScore}</strong>/100
              {unscored > 0 && (
                <span className="hint">
                  {' '}
                  (over the {count(report.scoredQuestions, 'scored question')}; {unscored} not scored)
                </span>
              )}
            </p>
            <ScoreChart
              title="Scores out of 100"
              bars={[
                { label: 'Overall', value: report.overallScore },
                { label: 'Technical accuracy', value: report.technicalAccuracy ?? 0 },
                { label: 'Communication', value: report.communicationScore ?? 0 },
              ]}
            />
          </>
        )}
        {report.feedback && (
          <>
            {reader === 'guest' && <p className="hint">The interviewer&apos;s summary, written to the candidate:</p>}
            <p>{report.feedback}</p>
          </>
        )}
      </section>

      <div className="columns">
        <ListCard title="Strengths" items={report.strengths} />
        <ListCard title="Weaknesses" items={report.weaknesses} />
        <ListCard title="Suggested topics" items={report.suggestedTopics} />
      </div>

      {report.requirements.length > 0 && <Requirements report={report} reader={reader} />}

      <section aria-labelledby="questions-title">
        <h2 id="questions-title">Question by question</h2>
        {ts.some((t) => countedNote(t)) && (
          <p className="hint">Each question counts once, with its best answer: a second try or the answer to a follow-up counts when it scored higher.</p>
        )}
        <ol className="results">
          {ts.map((t) => (
            <li key={t.main.question.id || t.number} className="card">
              <ThreadView thread={t} reader={reader} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

/** The evaluation a thread is judged by: the counted one. */
function countedEvaluation(t: Thread): Evaluation {
  const r = [t.main, ...t.followUps].find((x) => x.counted) ?? t.main;
  return r.counted === 'retry' && r.retry ? r.retry.evaluation : r.evaluation;
}

/** The first sentence of a feedback, for a collapsed question: at most
 * 140 characters, cut between words. */
export function oneLine(feedback: string): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(feedback.trim());
  const line = m ? m[1] : feedback.trim();
  if (line.length <= 140) return line;
  const cut = line.slice(0, 139);
  const space = cut.lastIndexOf(' ');
  return `${(space > 70 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}

function ThreadView({ thread: t, reader }: { thread: Thread; reader: Reader }) {
  const note = countedNote(t, reader);
  const e = countedEvaluation(t);
  return (
    <details>
      <summary>
        <span className="q-title">
          Question {t.number}: {t.main.question.text}
        </span>
        {e.scorable ? <span className="q-score">{e.score}/100</span> : <span className="q-score unscored">Not scored</span>}
        <span className="q-line">{oneLine(e.feedback)}</span>
        <span className="q-open">Show the answer and feedback</span>
      </summary>
      <Answers result={t.main} reader={reader} />
      {t.followUps.map((f, i) => (
        <div key={f.question.id || i} className="follow-up">
          <h4>
            <span className="badge">Follow-up{t.followUps.length > 1 ? ` ${i + 1}` : ''}</span> {f.question.text}
          </h4>
          <p className="hint">Judged on its own, with the answer to question {t.number} as context.</p>
          <Answers result={f} reader={reader} />
        </div>
      ))}
      {note && <p className="counted">{note}</p>}
    </details>
  );
}

/** An answer with its evaluation, and the second try when there is one:
 * the first try's feedback is folded away behind the second's. */
function Answers({ result: r, reader }: { result: QuestionResult; reader: Reader }) {
  const whose = Whose(reader);
  if (!r.retry) {
    return (
      <>
        <p className="answer">
          <strong>{whose} answer:</strong> {r.answer}
        </p>
        <EvaluationView evaluation={r.evaluation} answer={r.answer} reader={reader} />
      </>
    );
  }
  return (
    <>
      <p className="answer">
        <strong>{whose} first try:</strong> {r.answer}
      </p>
      <details className="first-try">
        <summary>Feedback on the first try ({r.evaluation.scorable ? `${r.evaluation.score}/100` : 'nothing to score'})</summary>
        <EvaluationView evaluation={r.evaluation} answer={r.answer} reader={reader} />
      </details>
      <div className="second-try">
        <p className="answer">
          <strong>{whose} second try</strong> ({tryChange(r.evaluation, r.retry.evaluation, reader)}): {r.retry.answer}
        </p>
        <EvaluationView evaluation={r.retry.evaluation} answer={r.retry.answer} reader={reader} />
      </div>
    </>
  );
}

function Requirements({ report, reader }: { report: Report; reader: Reader }) {
  const covered = report.requirements.filter((r) => r.coveredBy.length > 0).length;
  return (
    <section aria-labelledby="requirements-title" className="card">
      <h2 id="requirements-title">Job requirements</h2>
      <p>
        {Whose(reader)} answers touched <strong>{covered}</strong> of the {count(report.requirements.length, 'main requirement')} of the job description.
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
