// A bar chart in plain SVG: three bars do not justify a chart library in
// the bundle, and SVG prints cleanly.

export interface Bar {
  label: string;
  value: number; // 0–100
}

export function ScoreChart({ bars, title }: { bars: Bar[]; title: string }) {
  const rowH = 34;
  const labelW = 150;
  const width = 520;
  const barW = width - labelW - 50;
  const height = bars.length * rowH + 24;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="xMinYMin meet">
        <title id="chart-title">{title}</title>
        <desc id="chart-desc">{bars.map((b) => `${b.label}: ${b.value} out of 100`).join('; ')}</desc>
        {[0, 25, 50, 75, 100].map((t) => (
          <g key={t}>
            <line x1={labelW + (barW * t) / 100} x2={labelW + (barW * t) / 100} y1={0} y2={height - 20} className="grid" />
            <text x={labelW + (barW * t) / 100} y={height - 6} className="tick" textAnchor="middle">
              {t}
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const v = Math.max(0, Math.min(100, b.value));
          const y = i * rowH + 6;
          return (
            <g key={b.label}>
              <text x={labelW - 8} y={y + 16} textAnchor="end" className="label">
                {b.label}
              </text>
              <rect x={labelW} y={y} width={(barW * v) / 100} height={22} rx={3} className={`bar ${v >= 70 ? 'good' : v >= 40 ? 'fair' : 'low'}`} />
              <text x={labelW + (barW * v) / 100 + 6} y={y + 16} className="value">
                {b.value}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
