// Server bodies in the shapes docs/api.md pins, for the tests of the client
// and its decoding. Each builder takes overrides of its fields.
import type { Evaluation } from './types';

type Body = Record<string, unknown>;

/** An evaluation as the page holds it once decoded. */
export const evaluation: Evaluation = {
  scorable: true,
  offTopic: false,
  score: 72,
  technicalAccuracy: 70,
  communication: 75,
  feedback: 'Good.',
  strengths: ['clear'],
  improvements: ['depth'],
  evidence: [],
  star: null,
  delivery: null,
};

/** That evaluation on the wire: star and delivery left out, as the server
 * leaves them out when there are none. */
export const wireEvaluation = (o: Body = {}): Body => ({ ...evaluation, star: undefined, delivery: undefined, ...o });

export const wireQuestion = (id: string, o: Body = {}): Body => ({ id, text: `${id}?`, kind: 'main', ...o });

export const wireResult = (id: string, o: Body = {}): Body => ({ question: wireQuestion(id), answer: `${id} answer`, evaluation: wireEvaluation(), ...o });

export const wireReport = (o: Body = {}): Body => ({
  overallScore: 70,
  technicalAccuracy: 71,
  communicationScore: 69,
  questions: 1,
  scoredQuestions: 1,
  strengths: ['x'],
  weaknesses: null,
  suggestedTopics: [],
  feedback: 'Fine.',
  questionResults: [wireResult('q1', { counted: 'answer' })],
  requirements: null,
  ...o,
});

export const wireSession = (o: Body = {}): Body => ({
  sessionId: 's1',
  _id: 's1',
  status: 'in_progress',
  mode: 'offline',
  candidateName: 'Ada',
  role: 'Backend',
  experience: 'Senior',
  difficulty: 'hard',
  totalQuestions: 3,
  followUps: 1,
  requirements: null,
  currentQuestion: wireQuestion('q2'),
  questionNumber: 2,
  answeredQuestions: 1,
  questionResults: [wireResult('q1')],
  report: null,
  shared: false,
  createdAt: '2026-03-01T12:00:00Z',
  completedAt: null,
  ...o,
});

export const wireLimits = (o: Body = {}): Body => ({
  minQuestions: 1,
  maxQuestions: 20,
  maxFollowUps: 2,
  defaultFollowUps: 1,
  maxSetupText: 100,
  minPassword: 8,
  maxAnswer: 10000,
  maxJobDescription: 10000,
  maxInProgress: 3,
  ...o,
});

export const wireConfig = (o: Body = {}): Body => ({
  googleClientId: '',
  voice: { transcribe: true, speech: false },
  mode: 'offline',
  roleFamilies: ['backend engineering'],
  fallbackFamily: 'backend engineering',
  difficulties: ['easy', 'medium', 'hard'],
  defaultDifficulty: 'medium',
  limits: wireLimits(),
  ...o,
});

export const wireUser = (o: Body = {}): Body => ({ user: { _id: 'u1', fullName: 'Ada', email: 'a@b.c', hasPassword: false, ...o } });
