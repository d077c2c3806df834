import { whenLabel, type ProgressPoint } from '../practice';

// Scores across completed interviews, oldest on the left: a line per score
// in plain SVG (it prints cleanly and needs no library), and the same
// figures as a table for screen readers and anyone who prefers numbers.
// Points are numbered (1 is the oldest) so that two interviews of one day
// can be told apart; the table gives each number's date and time. The
// drawing is narrow (420 units) so that its text stays readable when a
// phone scales it down.
const series = [
  { key: 'overall', label: 'Overall', className: 'overall' },
  { key: 'technical', label: 'Technical accuracy', className: 'technical' },
  { key: 'communication', label: 'Communication', className: 'communication' },
] as const;

export function ProgressChart({ points }: { points: ProgressPoint[] }) {
  const width = 420;
  const height = 240;
  const left = 34;
  const right = 14;
  const top = 12;
  const bottom = 44;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i: number) => left + (points.length === 1 ? plotW / 2 : (plotW * i) / (points.length - 1));
  const y = (v: number) => top + plotH - (plotH * Math.max(0, Math.min(100, v))) / 100;
  const date = (p: ProgressPoint) => whenLabel(p.date);
  if (points.length === 0) return <p className="hint">No interview with a scored answer yet: there is nothing to draw.</p>;
  // Number every point while they fit, else about six of them.
  const every = Math.max(1, Math.ceil(points.length / 6));
  const first = points[0];
  const last = points[points.length - 1];
  const summary = series.map((s) => `${s.label} from ${first[s.key]} to ${last[s.key]}`).join('; ');
  return (
    <figure className="progress-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="progress-title progress-desc" preserveAspectRatio="xMinYMin meet">
        <title id="progress-title">Scores across your last {points.length} completed interviews</title>
        <desc id="progress-desc">{points.length > 1 ? `Oldest to newest: ${summary}.` : summary}</desc>
        {[0, 25, 50, 75, 100].map((t) => (
          <g key={t}>
            <line x1={left} x2={width - right} y1={y(t)} y2={y(t)} className="grid" />
            <text x={left - 6} y={y(t) + 4} className="tick" textAnchor="end">
              {t}
            </text>
          </g>
        ))}
        {points.map((p, i) =>
          i % every === 0 || i === points.length - 1 ? (
            <text key={p.id} x={x(i)} y={top + plotH + 16} className="tick seq" textAnchor="middle">
              {p.seq}
            </text>
          ) : null,
        )}
        <text x={left} y={height - 6} className="tick" textAnchor="start">
          {date(first)}
        </text>
        {points.length > 1 && (
          <text x={width - right} y={height - 6} className="tick" textAnchor="end">
            {date(last)}
          </text>
        )}
        {series.map((s) => (
          <g key={s.key} className={`series ${s.className}`}>
            {points.length > 1 && <polyline fill="none" points={points.map((p, i) => `${x(i)},${y(p[s.key])}`).join(' ')} />}
            {points.map((p, i) => (
              <circle key={p.id} cx={x(i)} cy={y(p[s.key])} r={4}>
                <title>{`#${p.seq} ${s.label}: ${p[s.key]} (${p.role}, ${date(p)})`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul className="legend">
          {series.map((s) => (
            <li key={s.key} className={s.className}>
              <span className="swatch" aria-hidden="true" /> {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
      <details className="as-table">
        <summary>Show the scores as a table</summary>
        <table>
          <caption>Scores by interview, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Date</th>
              <th scope="col">Role</th>
              {series.map((s) => (
                <th key={s.key} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.seq}</th>
                <td>{date(p)}</td>
                <td>{p.role}</td>
                {series.map((s) => (
                  <td key={s.key}>{p[s.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
