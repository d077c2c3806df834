import { useEffect, useState } from 'react';
import { api } from '../api';
import { ApiError, type Config, type QuestionFamilies, type User } from '../api/types';
import { navigate } from '../router';
import { fullscreenByDefault, rememberFullscreen, requestFullscreen } from '../anticheat';
import { ActiveInterviews } from '../components/ActiveInterviews';
import { areaNames, capitalise, focusTips, followUpChoices, modeLabel, readPrefill } from '../practice';

const experiences = ['Internship', 'Entry level (0–2 years)', 'Mid level (3–5 years)', 'Senior (6–9 years)', 'Lead / Principal (10+ years)'];

export function SetupPage({ user, config }: { user: User; config: Config }) {
  const { limits } = config;
  // A "practise this" link from the history fills the form in.
  const [prefill] = useState(() => readPrefill(location.search, limits, config.difficulties));
  const [candidateName, setCandidateName] = useState(user.fullName);
  const [role, setRole] = useState(prefill.role ?? '');
  const [experience, setExperience] = useState(experiences[1]);
  const [difficulty, setDifficulty] = useState(prefill.difficulty ?? config.defaultDifficulty);
  const [totalQuestions, setTotalQuestions] = useState(5);
  const [jobDescription, setJobDescription] = useState('');
  const [followUps, setFollowUps] = useState(prefill.followUps === undefined || prefill.followUps === limits.defaultFollowUps ? '' : String(prefill.followUps));
  const [resume, setResume] = useState('');
  const [fullscreen, setFullscreen] = useState(fullscreenByDefault);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function start(e: React.FormEvent) {
    e.preventDefault();
    // Full screen must be asked for inside the click, before any await.
    if (fullscreen) requestFullscreen();
    setBusy(true);
    setError('');
    try {
      const jd = jobDescription.trim();
      const s = await api.start({
        candidateName: candidateName.trim(),
        role: role.trim(),
        experience,
        difficulty,
        totalQuestions,
        ...(jd ? { jobDescription: jd } : {}),
        ...(followUps ? { followUps: Number(followUps) } : {}),
      });
      sessionStorage.setItem(`welcome:${s.sessionId}`, s.welcome);
      rememberFullscreen(s.sessionId, fullscreen);
      navigate(`/interview/${encodeURIComponent(s.sessionId)}`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The interview could not start. Try again.');
      setBusy(false);
    }
  }

  return (
    <section className="narrow">
      <h1>Set up your interview</h1>
      {config.mode === 'offline' && (
        <p className="notice">
          <strong>{modeLabel('offline')}.</strong> No language model is configured on this server, so questions come from a built-in set and answers are scored
          by checking for the key points a good answer covers. It is good for practice; the scores are rough.
        </p>
      )}
      {prefill.focus && (
        <p className="notice focus" role="status">
          <strong>Practise: {areaNames[prefill.focus].toLowerCase()}.</strong> It was your weakest area in your latest interviews. {focusTips[prefill.focus]}
        </p>
      )}
      <ActiveInterviews maxInProgress={limits.maxInProgress} onDiscarded={() => setError('')} />
      <form className="card" onSubmit={start}>
        <label>
          Candidate name
          <input name="candidateName" required autoComplete="name" maxLength={limits.maxSetupText} value={candidateName} onChange={(e) => setCandidateName(e.target.value)} />
        </label>
        <label>
          Role you are applying for
          <input
            name="role"
            required
            maxLength={limits.maxSetupText}
            placeholder="e.g. Backend engineer"
            value={role}
            onChange={(e) => setRole(e.target.value)}
            aria-describedby={config.roleFamilies.length > 0 ? 'role-families' : undefined}
          />
        </label>
        {config.roleFamilies.length > 0 && <RoleFamilies role={role} config={config} />}
        <label>
          Experience
          <select name="experience" value={experience} onChange={(e) => setExperience(e.target.value)}>
            {experiences.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Difficulty</legend>
          <div className="choices">
            {config.difficulties.map((d) => (
              <label key={d} className="choice">
                <input type="radio" name="difficulty" value={d} checked={difficulty === d} onChange={() => setDifficulty(d)} />
                {capitalise(d)}
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Number of questions
          <input
            name="totalQuestions"
            type="number"
            min={limits.minQuestions}
            max={limits.maxQuestions}
            required
            value={totalQuestions}
            onChange={(e) => setTotalQuestions(Number(e.target.value))}
          />
        </label>
        <label>
          Follow-up questions
          <select name="followUps" value={followUps} onChange={(e) => setFollowUps(e.target.value)} aria-describedby="followups-hint">
            {followUpChoices(limits).map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <p id="followups-hint" className="hint">
          After an answer the interviewer may ask about what it left out: a result, a number, your own part, a trade-off.
          {config.mode === 'offline' && ' In the offline mode a follow-up comes only when an answer has a clear gap.'} Follow-ups do not count toward the number of questions.
        </p>
        <label>
          Job description (optional)
          <textarea
            name="jobDescription"
            rows={6}
            maxLength={limits.maxJobDescription}
            value={jobDescription}
            onChange={(e) => setJobDescription(e.target.value)}
            aria-describedby="jd-hint"
            placeholder="Paste the advertisement: its requirements and responsibilities are enough."
          />
        </label>
        <p id="jd-hint" className="hint">
          Questions are drawn from it, and the report lists its main requirements with the answers that covered each. {jobDescription.length.toLocaleString()} of{' '}
          {limits.maxJobDescription.toLocaleString()} characters.
        </p>
        <label>
          Resume (optional, not uploaded)
          <input name="resume" type="file" accept=".pdf,.doc,.docx,.txt" aria-describedby="resume-hint" onChange={(e) => setResume(e.target.files?.[0]?.name ?? '')} />
        </label>
        <p id="resume-hint" className="hint">
          This control is interface only: the file stays on your device and is not sent to the server or used for questions yet.
          {resume && ` Selected: ${resume}.`}
        </p>
        <label className="choice">
          <input type="checkbox" checked={fullscreen} onChange={(e) => setFullscreen(e.target.checked)} />
          Use full screen during the interview
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Start interview'}
        </button>
      </form>
    </section>
  );
}

/** Which families of the practice bank the questions for the role typed
 * come from, said before the interview starts (the server's reading of
 * the role, asked once typing pauses). */
function RoleFamilies({ role, config }: { role: string; config: Config }) {
  const [read, setRead] = useState<{ role: string; families: QuestionFamilies } | null>(null);
  const typed = role.trim();
  useEffect(() => {
    if (!typed) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      api.families(typed, ctl.signal).then(
        (families) => setRead({ role: typed, families }),
        () => setRead(null),
      );
    }, 400);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [typed]);
  const names = (l: string[]) => (l.length > 1 ? `${l.slice(0, -1).join(', ')} and ${l.at(-1)}` : l[0]);
  let line = `The practice bank has questions for ${config.roleFamilies.join(', ')}. A role it does not know gets ${config.fallbackFamily || 'general'} questions.`;
  if (typed && read?.role === typed && read.families.families.length > 0) {
    line = read.families.general
      ? `“${typed}” names no family of the practice bank, so the questions will be general ${names(read.families.families)} questions.`
      : `Questions for “${typed}” come from the practice bank's ${names(read.families.families)} questions.`;
  }
  return (
    <p id="role-families" className="hint" aria-live="polite">
      {line} A job description you paste below can point to another family.
    </p>
  );
}
