import type { Evaluation } from '../api';

export function EvaluationView({ evaluation: e }: { evaluation: Evaluation }) {
  return (
    <div className="evaluation">
      <dl className="scores">
        <div>
          <dt>Score</dt>
          <dd>{e.score}/100</dd>
        </div>
        <div>
          <dt>Technical accuracy</dt>
          <dd>{e.technicalAccuracy}/100</dd>
        </div>
        <div>
          <dt>Communication</dt>
          <dd>{e.communication}/100</dd>
        </div>
      </dl>
      {e.feedback && <p>{e.feedback}</p>}
      {e.strengths.length > 0 && (
        <>
          <h3>What went well</h3>
          <ul>
            {e.strengths.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ul>
        </>
      )}
      {e.improvements.length > 0 && (
        <>
          <h3>To improve</h3>
          <ul>
            {e.improvements.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
