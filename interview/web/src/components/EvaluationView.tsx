import type { Delivery, Evaluation, Evidence, Star } from '../api/types';
import { type Reader } from '../practice';
import { shownQuote } from '../quote';

/** Speaking pace a listener follows comfortably, in words per minute. */
export const paceBand = { min: 120, max: 160 };

/** How long a spoken answer should last, in seconds: a behavioural story
 * (situation, task, action, result) needs more room than a technical point. */
export function lengthBand(behavioural: boolean): { min: number; max: number } {
  return behavioural ? { min: 45, max: 120 } : { min: 30, max: 120 };
}

export function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Where a value lies against a band, in words for the page. */
export function against(value: number, band: { min: number; max: number }, low: string, high: string): { ok: boolean; text: string } {
  if (value < band.min) return { ok: false, text: low };
  if (value > band.max) return { ok: false, text: high };
  return { ok: true, text: 'within the target' };
}

/** An evaluation of answer (its quotes are shown as excerpts of it), for
 * the candidate or for someone they shared the report with. */
export function EvaluationView({ evaluation: e, answer, reader = 'candidate' }: { evaluation: Evaluation; answer?: string; reader?: Reader }) {
  if (!e.scorable) {
    return (
      <div className="evaluation not-scorable">
        <p className="verdict" role="status">
          <strong>Not enough to score.</strong> This answer gets no score and is left out of the averages; the reason follows.
        </p>
        {e.feedback && <p>{e.feedback}</p>}
        {e.improvements.length > 0 && (
          <ul>
            {e.improvements.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ul>
        )}
        {e.delivery && <DeliveryView delivery={e.delivery} behavioural={e.star !== null} reader={reader} />}
      </div>
    );
  }
  return (
    <div className="evaluation">
      {e.offTopic && (
        <p className="verdict off-topic" role="status">
          <strong>Off the question.</strong> This answer does not address the question asked, so it scores low and counts in{' '}
          {reader === 'guest' ? 'the' : 'your'} averages like any other answer.
        </p>
      )}
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
      <PointList title="What went well" points={e.strengths} evidence={e.evidence} kind="strength" answer={answer} />
      <PointList title="To improve" points={e.improvements} evidence={e.evidence} kind="improvement" answer={answer} />
      {e.star && <StarView star={e.star} />}
      {e.delivery && <DeliveryView delivery={e.delivery} behavioural={e.star !== null} reader={reader} />}
    </div>
  );
}

function PointList({ title, points, evidence, kind, answer }: { title: string; points: string[]; evidence: Evidence[]; kind: Evidence['kind']; answer?: string }) {
  if (points.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul className="points">
        {points.map((p, i) => {
          const quotes = evidence.filter((ev) => ev.kind === kind && ev.point === p);
          return (
            <li key={i}>
              {p}
              {quotes.map((q, j) => (
                <blockquote key={j} className="quote">
                  {shownQuote(answer, q.quote)}
                </blockquote>
              ))}
            </li>
          );
        })}
      </ul>
    </>
  );
}

const starParts: { key: keyof Star; label: string }[] = [
  { key: 'situation', label: 'Situation' },
  { key: 'task', label: 'Task' },
  { key: 'action', label: 'Action' },
  { key: 'result', label: 'Result' },
];

function StarView({ star }: { star: Star }) {
  return (
    <>
      <h3>Story structure (STAR)</h3>
      <ul className="star">
        {starParts.map(({ key, label }) => (
          <li key={key} className={star[key] ? 'found' : 'missing'}>
            <span aria-hidden="true">{star[key] ? '✓' : '✗'}</span> {label}: {star[key] ? 'told' : 'missing'}
          </li>
        ))}
      </ul>
    </>
  );
}

function DeliveryView({ delivery: d, behavioural, reader }: { delivery: Delivery; behavioural: boolean; reader: Reader }) {
  const pace = against(d.wordsPerMinute, paceBand, 'slower than the target', 'faster than the target');
  const band = lengthBand(behavioural);
  const length = against(d.seconds, band, 'shorter than the target', 'longer than the target');
  return (
    <>
      <h3>Delivery</h3>
      <dl className="delivery">
        <div>
          <dt>Duration</dt>
          <dd>
            {duration(d.seconds)}{' '}
            <span className={length.ok ? 'band-in' : 'band-out'}>
              ({length.text} of {duration(band.min)} to {duration(band.max)}
              {behavioural ? ' for a story' : ''})
            </span>
          </dd>
        </div>
        <div>
          <dt>Pace</dt>
          <dd>
            {d.wordsPerMinute} words per minute{' '}
            <span className={pace.ok ? 'band-in' : 'band-out'}>
              ({pace.text} of {paceBand.min} to {paceBand.max})
            </span>
          </dd>
        </div>
        <div>
          <dt>Filler words</dt>
          <dd>{d.fillers.length === 0 ? 'none found' : d.fillers.map((f) => `“${f.word}” ×${f.count}`).join(', ')}</dd>
        </div>
      </dl>
      <p className="hint">Many speech-to-text systems leave out filler words such as “um”, “uh” or “you know”, so a transcript without them may not mean {reader === 'guest' ? 'the candidate' : 'you'} said none.</p>
    </>
  );
}
