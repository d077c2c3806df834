// The logic of practice that teaches, kept out of the pages so it can be
// tested without a browser: follow-up threads, second tries, requirement
// coverage, and progress across interviews.
import type { Config, Evaluation, HistoryItem, Limits, Question, QuestionResult, Requirement } from './api/types';

/** A main question's result and its follow-ups' (which come right after
 * it), numbered as the candidate saw them. */
export interface Thread {
  number: number;
  main: QuestionResult;
  followUps: QuestionResult[];
}

export function threads(results: QuestionResult[]): Thread[] {
  const out: Thread[] = [];
  for (const r of results) {
    const last = out.at(-1);
    if (r.question.kind === 'followUp' && last && last.main.question.id === r.question.parentId) {
      last.followUps.push(r);
    } else {
      out.push({ number: out.length + 1, main: r, followUps: [] });
    }
  }
  return out;
}

/** The label of the question being asked after answered main questions. */
export function questionLabel(q: Question, answered: number, total: number): string {
  if (q.kind === 'followUp') return `Follow-up to question ${answered}`;
  return `Question ${answered + 1} of ${total}`;
}

/** The number of the main question a result belongs to. */
export function numberOf(results: QuestionResult[], questionId: string): number {
  for (const t of threads(results)) {
    if (t.main.question.id === questionId || t.followUps.some((f) => f.question.id === questionId)) return t.number;
  }
  return 0;
}

/** The name of a question in a report: "question 2", "the follow-up to
 * question 2" (or "follow-up 2 to question 2" when there are two). */
export function questionName(results: QuestionResult[], questionId: string): string {
  for (const t of threads(results)) {
    if (t.main.question.id === questionId) return `question ${t.number}`;
    const i = t.followUps.findIndex((f) => f.question.id === questionId);
    if (i >= 0) return t.followUps.length > 1 ? `follow-up ${i + 1} to question ${t.number}` : `the follow-up to question ${t.number}`;
  }
  return 'a question';
}

/** Whether the last result may still get its second try: the interview is
 * in progress and the question just evaluated has none yet. */
export function canRetry(results: QuestionResult[], inProgress: boolean): boolean {
  const last = results.at(-1);
  return inProgress && !!last && !last.retry;
}

/** A count with its noun: "1 question", "3 questions". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The heading once every question is answered. */
export const allAnswered = (n: number): string => (n === 1 ? 'The question is answered' : `All ${n} questions answered`);

/** Who reads a report: the candidate who took it, or someone they shared
 * it with, to whom it speaks of "the candidate". */
export type Reader = 'candidate' | 'guest';

/** "your" for the candidate, "the candidate's" for a guest. */
export const whose = (reader: Reader): string => (reader === 'guest' ? "the candidate's" : 'your');

/** The same, to start a sentence. */
export const Whose = (reader: Reader): string => (reader === 'guest' ? "The candidate's" : 'Your');

/** A score change as a person reads it: "+23", "−5", "no change". Only
 * between two scores: an answer with nothing to score has none to compare
 * (see tryChange). */
export function scoreChange(before: number, after: number): string {
  const d = after - before;
  if (d === 0) return 'no change';
  return d > 0 ? `+${d}` : `\u2212${-d}`;
}

/** A later answer's score beside the first answer's, for a parenthesis:
 * "72, +27 on your first answer", or, when one of them had nothing to
 * score, that in words ("72; your first answer had nothing to score"). */
export function tryChange(first: Evaluation, later: Evaluation, reader: Reader = 'candidate'): string {
  const w = whose(reader);
  if (!later.scorable) return first.scorable ? `nothing to score; ${w} first answer scored ${first.score}` : `nothing to score, like ${w} first answer`;
  if (!first.scorable) return `${later.score}; ${w} first answer had nothing to score`;
  return `${later.score}, ${scoreChange(first.score, later.score)} on ${w} first answer`;
}

/** A second try's result right after it, in a sentence: its score beside
 * the first answer's. Which one counts is the server's rule (the better of
 * the two); the page states it, and the report says which it counted. */
export function secondTryNote(first: Evaluation, second: Evaluation): string {
  if (!first.scorable && !second.scorable) return 'Neither answer had anything to score, so this question has no score yet.';
  if (!first.scorable) return `Your first answer had nothing to score; this one scores ${second.score}.`;
  if (!second.scorable) return `This answer had nothing to score; your first answer keeps its ${first.score}.`;
  return `Your first answer scored ${first.score}; this one scores ${second.score} (${scoreChange(first.score, second.score)}).`;
}

/** What the report counted for a thread, in a sentence; '' when it is
 * simply the first answer to the main question, or nothing was scored. */
export function countedNote(t: Thread, reader: Reader = 'candidate'): string {
  const items = [t.main, ...t.followUps];
  const i = items.findIndex((r) => r.counted);
  if (i < 0) return '';
  const r = items[i];
  const first = t.main.evaluation;
  const w = whose(reader);
  const counted = r.counted === 'retry' && r.retry ? r.retry.evaluation : r.evaluation;
  if (!counted.scorable) return '';
  if (i === 0 && r.counted === 'answer') {
    if (!r.retry) return '';
    const second = r.retry.evaluation;
    return `Counted: ${w} first try (${first.score}); the second try ${second.scorable ? `scored ${second.score}` : 'had nothing to score'}.`;
  }
  const what = i === 0 ? `${w} second try` : r.counted === 'retry' ? `${w} second try at the follow-up` : `${w} answer to the follow-up`;
  return `Counted: ${what} (${tryChange(first, counted, reader)}).`;
}

/** A requirement's coverage in words. */
export function coverageText(req: Requirement, results: QuestionResult[]): string {
  if (req.coveredBy.length === 0) return 'No answer touched this.';
  const names = req.coveredBy.map((id) => questionName(results, id));
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `Covered by ${list}.`;
}

/** One completed interview on the progress chart. */
export interface ProgressPoint {
  id: string;
  /** 1 for the oldest interview shown, counting up. */
  seq: number;
  date: string;
  role: string;
  difficulty: string;
  overall: number;
  technical: number;
  communication: number;
}

/** The roles the progress chart can show: those with a scored interview,
 * most recent first, each once. */
export function rolesOf(items: HistoryItem[]): string[] {
  const out: string[] = [];
  for (const p of progressSeries(items).reverse()) {
    if (!out.includes(p.role)) out.push(p.role);
  }
  return out;
}

/** The scored interviews of the history (of one role, when given) as a
 * series, oldest first. An interview with no scored answer has no score
 * to draw: it is left out, not drawn as 0. */
export function progressSeries(items: HistoryItem[], role?: string): ProgressPoint[] {
  return [...items]
    .filter((h) => h.overallScore !== null && h.technicalAccuracy !== null && h.communicationScore !== null)
    .filter((h) => !role || h.role === role)
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date))
    .map((h, i) => ({
      id: h._id,
      seq: i + 1,
      date: h.date,
      role: h.role,
      difficulty: h.difficulty,
      overall: h.overallScore ?? 0,
      technical: h.technicalAccuracy ?? 0,
      communication: h.communicationScore ?? 0,
    }));
}

/** A point's date and time, short enough for a chart's label. */
export function whenLabel(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`;
}

export type Area = 'technical' | 'communication';

export const areaNames: Record<Area, string> = { technical: 'Technical accuracy', communication: 'Communication' };

/** The weakest area and what to practise next. */
export interface Weakest {
  area: Area;
  mean: number;
  /** How many recent interviews the mean is over. */
  over: number;
  role: string;
  difficulty: string;
}

/** Recent is how many of the latest interviews the weakest area is judged
 * on: the last few say more about where one stands now than old ones. */
export const recent = 5;

/** The difficulty levels as GET /api/config gives them: easiest first,
 * and the one a new interview starts on. */
export type Levels = Pick<Config, 'difficulties' | 'defaultDifficulty'>;

/** A word with its first letter in capitals: a level's label ("Medium"). */
export const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** "a" or "an" before a word, by its first letter. */
export const article = (word: string): string => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** The weaker of technical accuracy and communication over the latest
 * interviews (ties: technical), with the role of the latest one and a
 * difficulty to practise at: one level easier when the area averages under
 * 50, the same otherwise (a level the server no longer offers: its
 * default). */
export function weakestArea(items: HistoryItem[], levels: Levels, role?: string): Weakest | null {
  const series = progressSeries(items, role).slice(-recent);
  if (series.length === 0) return null;
  const mean = (f: (p: ProgressPoint) => number) => Math.round(series.reduce((s, p) => s + f(p), 0) / series.length);
  const tech = mean((p) => p.technical);
  const comm = mean((p) => p.communication);
  const area: Area = comm < tech ? 'communication' : 'technical';
  const score = Math.min(tech, comm);
  const latest = series[series.length - 1];
  const at = levels.difficulties.indexOf(latest.difficulty);
  const difficulty = at < 0 ? levels.defaultDifficulty : levels.difficulties[score < 50 ? Math.max(0, at - 1) : at];
  return { area, mean: score, over: series.length, role: latest.role, difficulty };
}

/** The setup a "practise this" link fills in. */
export interface Prefill {
  role?: string;
  difficulty?: string;
  followUps?: number;
  focus?: Area;
}

/** The link that opens the setup page filled in to practise w: its role,
 * difficulty, the most follow-ups per question the server allows (a weak
 * area is practised by being asked further), and the area as the focus. */
export function practiceLink(w: Weakest, l: Limits): string {
  const q = new URLSearchParams({ role: w.role, difficulty: w.difficulty, followUps: String(l.maxFollowUps), focus: w.area });
  return `/?${q.toString()}`;
}

const counts = ['none', 'one', 'two', 'three', 'four', 'five'];

/** A small count in words: "two". */
export const inWords = (n: number): string => counts[n] ?? String(n);

/** The follow-up settings the server allows, as the setup form offers
 * them: the empty value leaves the server's default, named first. */
export function followUpChoices(l: Limits): { value: string; label: string }[] {
  const upTo = (n: number) => (n === 0 ? 'None' : `Up to ${inWords(n)} per question`);
  const out = [{ value: '', label: `${upTo(l.defaultFollowUps)} (default)` }];
  for (let n = 0; n <= l.maxFollowUps; n++) if (n !== l.defaultFollowUps) out.push({ value: String(n), label: upTo(n) });
  return out;
}

/** Reads a setup page's query string; anything unknown, malformed or out
 * of the server's limits and levels is left out. */
export function readPrefill(search: string, l: Limits, levels: string[]): Prefill {
  const q = new URLSearchParams(search);
  const out: Prefill = {};
  const role = q.get('role')?.trim();
  if (role) out.role = role.slice(0, l.maxSetupText);
  const d = q.get('difficulty');
  if (d && levels.includes(d)) out.difficulty = d;
  const f = q.get('followUps');
  if (f && /^\d+$/.test(f) && Number(f) <= l.maxFollowUps) out.followUps = Number(f);
  const focus = q.get('focus');
  if (focus === 'technical' || focus === 'communication') out.focus = focus;
  return out;
}

/** What to do to practise an area. */
export const focusTips: Record<Area, string> = {
  technical:
    'Name the key concepts the question is about, explain how they work and why, and back each with a concrete example or number. Follow-ups will ask for what you leave out.',
  communication:
    'Lead with your answer in one sentence, then give two or three supporting points in order, then an example with its result. Say "I" for what you did. Follow-ups will ask for what you leave out.',
};

/** The interviewer in use, as the page names it. */
export function modeLabel(mode: string): string {
  if (mode === 'offline') return 'Offline practice mode';
  if (mode === 'language-model') return 'AI interviewer';
  return '';
}
