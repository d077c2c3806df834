import { useState } from 'react';
import { api } from '../api';
import { link } from '../router';
import { ApiError, type Config, type HistoryItem } from '../api/types';
import { useLoad } from '../load';
import { LoadFailed } from '../components/LoadFailed';
import { ProgressChart } from '../components/ProgressChart';
import { areaNames, article, capitalise, count, inWords, practiceLink, progressSeries, recent, rolesOf, weakestArea } from '../practice';

// One page of history at a time, newest first; "Show older" asks for the
// page before the last date shown.
export const historyPageSize = 20;

const newestFirst = (list: HistoryItem[]) => [...list].sort((a, b) => Date.parse(b.date) - Date.parse(a.date));

export function HistoryPage({ config }: { config: Config }) {
  // The first page; "Show older" adds pages to it.
  const loaded = useLoad(async (signal) => {
    const list = await api.history({ limit: historyPageSize }, signal);
    return { items: newestFirst(list), more: list.length === historyPageSize };
  }, []);
  const items = loaded.data?.items ?? null;
  const more = loaded.data?.more ?? false;
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState('');

  async function older() {
    const last = items?.at(-1);
    if (!last) return;
    setLoading(true);
    setError('');
    try {
      const list = await api.history({ limit: historyPageSize, before: last.date });
      loaded.update((shown) => {
        const had = shown?.items ?? [];
        // Newest first even if the server's order changes.
        return { items: newestFirst([...had, ...list.filter((h) => !had.some((s) => s._id === h._id))]), more: list.length === historyPageSize };
      });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The history could not load.');
    } finally {
      setLoading(false);
    }
  }

  if (loaded.error) return <LoadFailed title="Your completed interviews" error={loaded.error} fallback="The history could not load." onRetry={loaded.retry} />;

  return (
    <section>
      <h1>Your completed interviews</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!items && <p role="status">Loading…</p>}
      {items && items.length === 0 && (
        <p>
          No completed interviews yet.{' '}
          <a href="/" onClick={link('/')}>
            Start one
          </a>
          .
        </p>
      )}
      {items && rolesOf(items).length > 0 && <Progress items={items} config={config} />}
      {items && items.length > 0 && (
        <ul className="history">
          {items.map((h) => {
            const d = new Date(h.date);
            const to = `/report/${encodeURIComponent(h._id)}`;
            return (
              <li key={h._id} className="card">
                <a href={to} onClick={link(to)}>
                  <span className="h-role">{h.role}</span>
                  <span className="h-meta">
                    {h.experience} · {h.difficulty} · {count(h.totalQuestions, 'question')}
                  </span>
                  <span className="h-date">{Number.isNaN(d.getTime()) ? h.date : d.toLocaleString()}</span>
                  {h.overallScore === null ? (
                    <span className="h-score unscored">Not scored</span>
                  ) : (
                    <span className="h-score" aria-label={`Overall score ${h.overallScore} out of 100`}>
                      {h.overallScore}
                      <small>/100</small>
                    </span>
                  )}
                  <span className="h-open">Open report</span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
      {more && (
        <p className="more">
          <button type="button" onClick={older} disabled={loading}>
            {loading ? 'Loading…' : 'Show older interviews'}
          </button>
        </p>
      )}
    </section>
  );
}

// Progress over time: the chart of every interview shown, and the weakest
// area of the latest ones with a link that sets up an interview to
// practise it.
// One role at a time (the latest one's first): scores of different roles
// on one line would mix questions of different kinds.
function Progress({ items, config }: { items: HistoryItem[]; config: Config }) {
  const { limits } = config;
  const roles = rolesOf(items);
  const [picked, setRole] = useState('');
  const role = roles.includes(picked) ? picked : (roles[0] ?? '');
  const weak = weakestArea(items, config, role);
  const to = weak ? practiceLink(weak, limits) : '/';
  return (
    <section className="card progress-card" aria-labelledby="progress-heading">
      <h2 id="progress-heading">Your progress</h2>
      {roles.length > 1 && (
        <p className="field inline">
          <label htmlFor="progress-role">Role</label>{' '}
          <select id="progress-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </p>
      )}
      <ProgressChart points={progressSeries(items, role)} />
      {weak && (
        <div className="weakest">
          <p>
            Weakest area{weak.over > 1 ? ` over your last ${Math.min(weak.over, recent)} interviews` : ''}: <strong>{areaNames[weak.area]}</strong>, {weak.mean}/100 on average.
          </p>
          <p>
            <a className="button primary" href={to} onClick={link(to)}>
              Practise this
            </a>{' '}
            <span className="hint">
              {capitalise(article(weak.difficulty))} {weak.difficulty} {weak.role} interview with up to {inWords(limits.maxFollowUps)} follow-up{limits.maxFollowUps === 1 ? '' : 's'} per question.
            </span>
          </p>
        </div>
      )}
    </section>
  );
}
