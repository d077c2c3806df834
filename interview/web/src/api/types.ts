// The shapes of the interview HTTP API as the pages use them (docs/api.md
// pins the wire format). Only decode.ts builds these from server JSON.

export interface User {
  _id: string;
  fullName: string;
  email: string;
  /** False for an account that signs in with Google only. */
  hasPassword: boolean;
}

/** The service's bounds, as GET /api/config gives them: the forms hold to
 * these and the pages quote them, copying none. */
export interface Limits {
  minQuestions: number;
  maxQuestions: number;
  maxFollowUps: number;
  /** The follow-ups per question when a start does not say. */
  defaultFollowUps: number;
  /** Characters of the candidate name, the role and the experience. */
  maxSetupText: number;
  /** Characters of a new password, at least. */
  minPassword: number;
  /** Characters of one answer. */
  maxAnswer: number;
  /** Characters of a pasted job description. */
  maxJobDescription: number;
  /** Interviews in progress at once; 0: no cap. */
  maxInProgress: number;
}

export interface Config {
  googleClientId: string;
  voice: { transcribe: boolean; speech: boolean };
  /** "offline" for the offline practice mode, "language-model" otherwise. */
  mode: string;
  /** The role families the offline question bank covers, and the one any
   * other role gets; empty with a language model. */
  roleFamilies: string[];
  fallbackFamily: string;
  /** The difficulty levels a start accepts, easiest first, and the one
   * the setup form starts on. */
  difficulties: string[];
  defaultDifficulty: string;
  limits: Limits;
}

export interface Question {
  id: string;
  text: string;
  /** "followUp" for a follow-up question on the main question parentId. */
  kind: 'main' | 'followUp';
  parentId?: string;
}

export interface Evidence {
  kind: 'strength' | 'improvement';
  point: string;
  /** Words of the answer, checked by the server to occur in it. */
  quote: string;
}

export interface Star {
  situation: boolean;
  task: boolean;
  action: boolean;
  result: boolean;
}

export interface Delivery {
  seconds: number;
  wordsPerMinute: number;
  words: number;
  fillers: { word: string; count: number }[];
}

export interface Evaluation {
  /** False: "not enough to score" (empty, noise, a failed dictation); every score is 0. */
  scorable: boolean;
  /** The answer does not address its question: scored (low) and counted
   * like any other answer. */
  offTopic: boolean;
  score: number;
  technicalAccuracy: number;
  communication: number;
  feedback: string;
  strengths: string[];
  improvements: string[];
  evidence: Evidence[];
  /** Behavioural questions only. */
  star: Star | null;
  /** Spoken (dictated or recorded) answers only. */
  delivery: Delivery | null;
}

/** A second try at a question already evaluated. */
export interface Attempt {
  answer: string;
  evaluation: Evaluation;
}

export interface QuestionResult {
  question: Question;
  answer: string;
  evaluation: Evaluation;
  retry: Attempt | null;
  /** In a report: which answer of this item the averages use ("answer" or
   * "retry"); empty when another item of its main question counts. */
  counted: '' | 'answer' | 'retry';
}

/** A requirement of the job description and the questions (by id) whose
 * answers covered it. */
export interface Requirement {
  text: string;
  coveredBy: string[];
}

export interface Report {
  /** Averages over the main questions whose counted answer was scored;
   * null when none was. */
  overallScore: number | null;
  technicalAccuracy: number | null;
  communicationScore: number | null;
  /** Main questions answered, and how many of them were scored. */
  questions: number;
  scoredQuestions: number;
  strengths: string[];
  weaknesses: string[];
  suggestedTopics: string[];
  feedback: string;
  questionResults: QuestionResult[];
  requirements: Requirement[];
}

export interface Setup {
  candidateName: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** Optional pasted job description, at most limits.maxJobDescription characters. */
  jobDescription?: string;
  /** Follow-ups per question, 0 to limits.maxFollowUps; absent: limits.defaultFollowUps. */
  followUps?: number;
}

export interface Started {
  sessionId: string;
  welcome: string;
  question: Question;
  mode: string;
}

/** An interview as the page needs it to resume after a reload. */
export interface Session extends Setup {
  id: string;
  status: 'in_progress' | 'completed';
  mode: string;
  currentQuestion: Question | null;
  /** Main questions answered, as the server counts them. */
  answeredQuestions: number;
  results: QuestionResult[];
  report: Report | null;
  /** The job description's requirements, read at the start. */
  requirements: string[];
  /** A share link to the report exists. */
  shared: boolean;
  createdAt: string;
  /** '' until finished. */
  completedAt: string;
}

/** What a share link shows: the report and the setup it was taken with. */
export interface SharedReport {
  report: Report;
  role: string;
  experience: string;
  difficulty: string;
  completedAt: string;
}

export interface ShareLink {
  token: string;
  url: string;
}

/** A second try was evaluated. */
export interface Retried {
  evaluation: Evaluation;
  previousScore: number;
  /** The question now being asked: a follow-up asked on the first try is
   * asked again of the better answer, so it may change or give way to the
   * next question (null: every question is answered). */
  nextQuestion: Question | null;
}

export interface HistoryItem {
  _id: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** null: no answer of the interview was scored. */
  overallScore: number | null;
  technicalAccuracy: number | null;
  communicationScore: number | null;
  date: string;
}

/** Where an interview's questions for a role come from (offline bank). */
export interface QuestionFamilies {
  /** The bank's families; empty when a language model writes the questions. */
  families: string[];
  /** The role names no family: the general questions every role gets. */
  general: boolean;
}

/** An interview in progress, as the list for resuming or discarding shows it. */
export interface ActiveItem {
  _id: string;
  role: string;
  experience: string;
  difficulty: string;
  totalQuestions: number;
  /** The question being asked; 0 once every question is answered. */
  questionNumber: number;
  /** The question being asked is a follow-up of questionNumber. */
  followUp: boolean;
  createdAt: string;
}

/** One page of history: newest first; `before` is the date of the last
 * item of the previous page. */
export interface HistoryPage {
  limit?: number;
  before?: string;
}

/** The answer was evaluated: its evaluation and what comes next. */
export interface Evaluated {
  kind: 'evaluated';
  evaluation: Evaluation;
  nextQuestion: Question | null;
  isLastQuestion: boolean;
  /** Main questions answered, this one included, as the server counts them. */
  answeredQuestions: number;
}

/** A 409: an earlier submission of this answer holds the claim. */
export interface AlreadyEvaluating {
  kind: 'already-evaluating';
  message: string;
}

/** Every failed call: the server's {"error": {"code", "message"}}, a
 * network failure (status 0, code "network"), or a body this client cannot
 * read (code "bad_response"). message is a sentence for the page. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}
