// Browser end-to-end test of the interview web client against the real
// interview binary (offline interviewer) and a real Postgres, in headless
// Chromium driven by playwright-core. Run with `npm run e2e`.
//
// Environment: INTERVIEW_BIN to use a prebuilt binary instead of building
// bin/interview; CHROMIUM to point at another Chromium; TEST_DATABASE_URL to
// use an existing Postgres server.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { chromium, request } from 'playwright-core';
import { startPostgres } from './postgres.mjs';
import { freePort, waitFor } from './util.mjs';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(webDir, '..', '..');
const shots = join(webDir, 'screenshots');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

function buildBinary() {
  if (process.env.INTERVIEW_BIN) return process.env.INTERVIEW_BIN;
  if (!existsSync(join(webDir, 'dist', 'app', 'index.html'))) {
    execFileSync('npm', ['run', 'build'], { cwd: webDir, stdio: 'inherit' });
  }
  // Always rebuilt so that the binary embeds the app just built.
  const out = join(repo, 'bin', 'interview');
  mkdirSync(dirname(out), { recursive: true });
  execFileSync('go', ['build', '-o', out, './interview/cmd/interview'], { cwd: repo, stdio: 'inherit' });
  return out;
}

async function startService(bin, databaseURL) {
  const port = await freePort();
  const env = { ...process.env, INTERVIEW_ADDR: `127.0.0.1:${port}`, DATABASE_URL: databaseURL, APP_ENV: 'development', JWT_SECRET: randomBytes(32).toString('hex') };
  // The offline interviewer: no model settings reach the binary.
  for (const k of ['LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL', 'GOOGLE_CLIENT_ID', 'JUDGE_URL', 'JUDGE_API_KEY']) delete env[k];
  const logs = [];
  const cwd = mkdtempSync(join(tmpdir(), 'interview-e2e-cwd-'));
  const child = spawn(bin, [], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => logs.push(d.toString()));
  child.stderr.on('data', (d) => logs.push(d.toString()));
  let exited = null;
  child.on('exit', (code) => (exited = code));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (exited !== null) throw new Error(`interview exited with ${exited}:\n${logs.join('')}`);
      const r = await fetch(`${base}/readyz`);
      return r.ok;
    },
    { what: 'the interview service to be ready' },
  );
  return {
    base,
    logs,
    stop: async () => {
      if (exited === null) {
        await new Promise((res) => {
          child.once('exit', res);
          child.kill('SIGTERM');
        });
      }
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

async function noHorizontalScroll(page) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(scroll <= client, `page scrolls horizontally: scrollWidth ${scroll} > clientWidth ${client} at ${page.url()}`);
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

// answerFollowUps answers the follow-ups the offline interviewer asks on a
// gap in the last answer, until the page shows want (the next main
// question's label or the "all answered" heading). At most two.
async function answerFollowUps(page, want) {
  const target = want.startsWith('All ') ? page.getByRole('heading', { name: want }) : page.getByText(want, { exact: true });
  for (let i = 0; i < 3; i++) {
    const followUp = page.locator('form.follow-up-question');
    await target.or(followUp).first().waitFor();
    if (await target.isVisible()) return;
    await page.getByLabel('Your answer', { exact: true }).fill('I measured it first; for example p95 latency fell from 900 ms to 120 ms. The trade-off is more memory, however it was worth it.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await followUp.waitFor({ state: 'detached' });
  }
  await target.waitFor();
}

// strongAnswer is what a well-prepared candidate says to a question of
// the practice bank: something about each key point the bank lists for it
// (in its own words and keywords), an example with figures and a trade-off.
function strongAnswer(question) {
  const dir = join(repo, 'interview', 'internal', 'interviewer', 'offline', 'bank');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const family = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const list of Object.values(family).filter(Array.isArray)) {
      const q = list.find((x) => x && x.q && x.q.trim() === question.trim());
      if (!q) continue;
      const points = q.p.map((raw) => {
        const [label, keywords = ''] = raw.split(' = ');
        const kw = keywords.split('|').map((k) => k.trim()).filter(Boolean);
        return `${label}: I would rely on ${kw.slice(0, 2).join(' and ')} here, because that keeps the system correct when it is under load.`;
      });
      return `${points.join(' ')} For example, at my last job I did this for a payments API serving 2,000 requests per second, and p95 latency fell from 900 ms to 120 ms. The trade-off is more moving parts and a higher bill, so for a small internal service I would choose a simpler design.`;
    }
  }
  throw new Error(`the question "${question}" is not in the practice bank`);
}

// The quotes shown in an evaluation, as the words of the answer they show:
// without the quotation marks and ellipses the page adds.
async function quotesIn(scope) {
  return (await scope.locator('blockquote.quote').allInnerTexts()).map((q) => q.trim().replace(/^“…?/, '').replace(/…?”$/, ''));
}

const squash = (s) => s.replace(/\s+/g, ' ').trim();
const wordCount = (s) => s.split(/\s+/).filter(Boolean).length;

// assertOwnWords checks an evaluation on the page against the one answer
// it judged: every quote is words of that answer, and a word count the
// feedback gives is that answer's.
async function assertOwnWords(scope, answer, what) {
  for (const q of await quotesIn(scope)) assert.ok(squash(answer).includes(squash(q)), `${what}: the quote "${q}" is not words of the answer judged: ${answer}`);
  const said = /At (\d+) words/.exec(await scope.innerText());
  if (said) {
    const n = Number(said[1]);
    const words = wordCount(answer);
    assert.ok(Math.abs(n - words) <= Math.max(3, words / 10), `${what}: the feedback counts ${n} words, the answer has ${words}`);
  }
}

// tabThrough presses Tab through every control of the page and past the
// last one, where focus leaves the page for the browser's own toolbar (the
// window is blurred, the page stays in view): using the keyboard records
// no integrity warning.
async function tabThrough(page) {
  const before = await page.locator('.integrity').innerText();
  const controls = await page.evaluate(() => {
    window.e2eBlurs = 0;
    window.addEventListener('blur', () => window.e2eBlurs++);
    return document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])').length;
  });
  for (let i = 0; i < controls + 3; i++) await page.keyboard.press('Tab');
  assert.ok((await page.evaluate(() => window.e2eBlurs)) >= 1, 'Tab moved the focus out of the page at least once');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await page.locator('.integrity').innerText(), before, 'the keyboard recorded a warning');
}

// The job description pasted for the first interview: the report lists
// its requirements with the answers that covered each.
const jobDescription = `Backend engineer, payments platform.
- Design and operate REST APIs in Go
- PostgreSQL: schema design, indexes and query optimisation
- Observability: metrics, logs and tracing for on-call`;

test('interview web client end to end', { timeout: 480_000 }, async (t) => {
  mkdirSync(shots, { recursive: true });
  const bin = buildBinary();
  const pg = await startPostgres();
  t.after(() => pg.stop());
  const svc = await startService(bin, pg.url);
  t.after(() => svc.stop());

  const profile = mkdtempSync(join(tmpdir(), 'interview-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    baseURL: svc.base,
  });
  // The profile goes once the browser that writes into it has closed.
  t.after(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  });
  // The browser's speech recognition, stubbed: the real one needs the
  // vendor's service. Started, it hears the question read back with an
  // example, a number and a trade-off, then waits to be stopped. With
  // e2e-no-recognizer in localStorage the browser has none at all.
  await context.addInitScript(() => {
    if (localStorage.getItem('e2e-no-recognizer')) {
      window.SpeechRecognition = undefined;
      window.webkitSpeechRecognition = undefined;
      return;
    }
    // Chromium has the unprefixed SpeechRecognition too, which the page
    // prefers: both names get the stub.
    window.SpeechRecognition = window.webkitSpeechRecognition = class {
      constructor() {
        this.lang = '';
        this.continuous = false;
        this.interimResults = false;
        this.onresult = null;
        this.onerror = null;
        this.onend = null;
      }
      start() {
        // With e2e-mic-blocked in localStorage the microphone is blocked:
        // the recognizer fails as the browser's does, having heard nothing.
        if (localStorage.getItem('e2e-mic-blocked')) {
          setTimeout(() => {
            this.onerror?.({ error: 'not-allowed' });
            this.onend?.();
          }, 50);
          return;
        }
        const q = document.querySelector('#question-title')?.textContent ?? '';
        const said = `Um, so, to answer ${q.replace(/[?.]+$/, '')}: for example, at my last job we ran Postgres with 3 replicas. However, the trade-off was the cost.`;
        setTimeout(() => this.onresult?.({ resultIndex: 0, results: [{ isFinal: true, 0: { transcript: said } }] }), 300);
      }
      stop() {
        setTimeout(() => this.onend?.(), 50);
      }
      abort() {
        this.onend?.();
      }
    };
  });
  const page = context.pages()[0] ?? (await context.newPage());

  // Console errors fail the run, except the browser's own log line for a
  // response status the page expects: 401 from /api/auth/me while signed
  // out, and the 409 the double-submit step provokes on purpose.
  const consoleErrors = [];
  let expectedStatuses = new Set([401]);
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(m.text());
    if (status && expectedStatuses.has(Number(status[1]))) return;
    consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`page error: ${err.message}`));

  const email = `ada.${randomBytes(4).toString('hex')}@example.com`;
  const role = 'Backend engineer';
  let interviewId = '';

  await t.test('sign-in page fits 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await noHorizontalScroll(page);
    await shot(page, '01-signin-375');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, '01-signin');
  });

  await t.test('register', async () => {
    await page.getByRole('button', { name: 'I am new here' }).click();
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await shot(page, '02-register');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    expectedStatuses = new Set();
  });

  await t.test('setup names the offline practice mode', async () => {
    assert.equal(await page.getByText('Offline practice mode').first().isVisible(), true);
    assert.equal(await page.getByLabel('Candidate name').inputValue(), 'Ada Lovelace');
    assert.match(await page.locator('#resume-hint').innerText(), /interface only/);
    // Before starting, the page says which roles the bank covers and what
    // any other role gets.
    assert.match(await page.locator('#role-families').innerText(), /questions for backend engineering, [\s\S]*frontend engineering[\s\S]*A role it does not know gets behavioural and leadership questions/);
    await page.getByLabel('Role you are applying for').fill(role);
    // Once the role is typed, the page says where its questions come from.
    await page.locator('#role-families', { hasText: `Questions for “${role}” come from the practice bank's backend engineering questions.` }).waitFor();
    await page.getByLabel('Number of questions').fill('3');
    await page.getByLabel('Hard').check();
    await page.getByLabel('Use full screen during the interview').uncheck();
    // Follow-ups stay at the default; the job description shapes the questions.
    assert.equal(await page.getByLabel('Follow-up questions').inputValue(), '');
    await page.getByLabel('Job description (optional)').fill(jobDescription);
    assert.match(await page.locator('#jd-hint').innerText(), new RegExp(`${jobDescription.length} of 10,000 characters`));
    await shot(page, '03-setup');
  });

  let firstQuestion = '';
  await t.test('start, answer vaguely: a follow-up appears', async () => {
    await page.getByRole('button', { name: 'Start interview' }).click();
    await page.waitForURL(/\/interview\/[^/]+$/);
    interviewId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    await page.getByText('Question 1 of 3', { exact: true }).waitFor();
    firstQuestion = await page.locator('#question-title').innerText();
    assert.ok(firstQuestion.length > 10, 'a question is shown');
    // The new question is announced and focused.
    assert.match(await page.locator('[aria-live="polite"]').innerText(), /Question 1 of 3/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'question-title');
    assert.match(await page.locator('.integrity').innerText(), /cannot enforce/);
    // Full screen was turned off at the setup: the box does not speak of it.
    assert.doesNotMatch(await page.locator('.integrity').innerText(), /full screen/);
    assert.match(await page.locator('.welcome').innerText(), /job description/);
    await shot(page, '04-interview');

    // Submit is disabled while the answer is in flight.
    await page.route('**/api/interview/answer', async (route) => {
      await new Promise((r) => setTimeout(r, 700));
      await route.continue();
    });
    await page.getByLabel('Your answer', { exact: true }).fill('It depends on the situation.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    const busy = page.getByRole('button', { name: 'Evaluating your answer…' });
    await busy.waitFor();
    assert.equal(await busy.isDisabled(), true);
    await page.getByRole('heading', { name: 'Feedback on question 1' }).waitFor();
    await page.unroute('**/api/interview/answer');
    // The vague answer has a clear gap: a follow-up on it, which is not
    // question 2 and does not count toward the three.
    await page.locator('form.follow-up-question .progress', { hasText: /^Follow-up to question 1/ }).waitFor();
    assert.equal(await page.locator('form.follow-up-question').count(), 1);
    assert.match(await page.locator('.progress').innerText(), /Does not count toward the 3/);
    assert.notEqual(await page.locator('#question-title').innerText(), firstQuestion);
    await shot(page, '05-follow-up');
  });

  await t.test('a second try raises the score and closes the follow-up\'s gap: question 2 comes instead', async () => {
    await page.getByRole('button', { name: 'Try this question again' }).click();
    // It speaks to each of the questions the description may open with
    // (observability, a job queue, a database near capacity), closing the
    // gap the follow-up asks about, whichever it is.
    await page.getByLabel('Answer the same question again, using the feedback above').fill(
      'First I would find the bottleneck by measuring CPU, IO and connections, then fix slow queries with an index and EXPLAIN, and add a connection pool with PgBouncer and read replicas with a cache. ' +
        'For a job queue I would persist jobs in Postgres, claim them atomically with SKIP LOCKED and a lease with a heartbeat, retry with backoff into a dead letter queue, and keep handlers idempotent. ' +
        'For observability I would instrument services with OpenTelemetry, store metrics in Prometheus with long-term retention, control label cardinality and sample traces. ' +
        'For example, in my last project a REST API in Go on PostgreSQL went from a p95 latency of 900 ms to 120 ms. However the trade-off is complexity and cost, so I would choose differently for a small service.',
    );
    await page.getByRole('button', { name: 'Submit second try' }).click();
    const change = page.locator('.score-change');
    await change.waitFor();
    // "Your first answer scored 12; this one scores 80 (+68)." or, when
    // the vague first answer had nothing to score, that in words.
    const said = await change.innerText();
    const m = /^Your first answer (?:scored (\d+)|had nothing to score); this one scores (\d+)\b/.exec(said);
    assert.ok(m, `the second try reads: ${said}`);
    if (m[1] !== undefined) assert.ok(Number(m[2]) > Number(m[1]), `the second try scored ${m[2]}, the first ${m[1]}`);
    assert.match(said, /The better of your two answers counts\./);
    assert.equal(await page.getByRole('button', { name: 'Try this question again' }).count(), 0, 'one second try only');
    // The follow-up asked of the vague first try is asked again of the
    // second, which covers what it asked about: it gives way to question 2.
    await page.getByText('Question 2 of 3', { exact: true }).waitFor();
    assert.equal(await page.locator('form.follow-up-question').count(), 0, 'the follow-up on the closed gap is gone');
    const session = await (await page.request.get(`/api/interview/${encodeURIComponent(interviewId)}`)).json();
    assert.equal(session.currentQuestion.kind, 'main');
    await shot(page, '06-second-try');
  });

  await t.test('voice controls follow the server config', async () => {
    const config = await (await page.request.get('/api/config')).json();
    const record = page.getByRole('button', { name: 'Record answer' });
    assert.equal(await record.count(), config.voice.transcribe ? 1 : 0, 'record button shown only when transcription is on');
    if (config.voice.speech) {
      // The server voice answers with WAV for each sentence chunk.
      const [res] = await Promise.all([page.waitForResponse('**/api/voice/speech'), page.getByRole('button', { name: 'Read question aloud' }).click()]);
      assert.equal(res.status(), 200);
      assert.match(res.headers()['content-type'], /audio\/wav/);
      assert.ok(JSON.parse(res.request().postData()).text.length <= 190);
      await page.getByRole('button', { name: /Stop reading|Read question aloud/ }).first().click();
    }
  });

  await t.test('a reload mid-interview resumes it', async () => {
    const before = await page.locator('#question-title').innerText();
    await page.reload();
    await page.getByText('Question 2 of 3', { exact: true }).waitFor();
    assert.equal(await page.locator('#question-title').innerText(), before);
    assert.equal(new URL(page.url()).pathname, `/interview/${encodeURIComponent(interviewId)}`);
    await page.getByRole('heading', { name: 'Feedback on question 1' }).waitFor();
    await page.locator('.score-change').waitFor();
  });

  await t.test('a double submit shows "already being evaluated"', async () => {
    // An earlier submission of this answer holds a live claim: the state a
    // second tab or a retried request meets while the first is evaluated.
    pg.sql(`UPDATE interviews SET claim_token = gen_random_uuid(), answer_claimed_at = now() WHERE id = '${interviewId}'`);
    expectedStatuses = new Set([409]);
    const q = await page.locator('#question-title').innerText();
    await page.getByLabel('Your answer', { exact: true }).fill('It depends on the situation.');
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    assert.equal(res.status(), 409);
    const info = page.getByRole('status').filter({ hasText: 'already being evaluated' });
    await info.waitFor();
    assert.equal(await page.locator('.question [role="alert"]').count(), 0, 'a 409 is not shown as a failure');
    assert.equal(await page.locator('#question-title').innerText(), q, 'the question stays');
    assert.notEqual(await page.getByLabel('Your answer', { exact: true }).inputValue(), '', 'the answer stays in the box');
    await shot(page, '06b-conflict');
    expectedStatuses = new Set();

    // Once that claim is gone the same answer goes through.
    pg.sql(`UPDATE interviews SET claim_token = NULL, answer_claimed_at = NULL WHERE id = '${interviewId}'`);
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: /^Feedback on question 2/ }).waitFor();
    assert.equal(await page.getByText('already being evaluated').count(), 0);
    // The vague answer gets its follow-up.
    await page.locator('form.follow-up-question .progress', { hasText: /^Follow-up to question 2/ }).waitFor();
  });

  await t.test('answer the follow-up: judged on its own, then question 3', async () => {
    await page.getByLabel('Your answer', { exact: true }).fill('In that project I chose the cache myself; as a result p95 latency fell by 80 percent, however memory use grew, which was the trade-off.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Feedback on the follow-up to question 2' }).waitFor();
    assert.match(await page.locator('.feedback').innerText(), /Judged on this answer alone, with your answer to question 2 as context/);
    await page.getByText('Question 3 of 3', { exact: true }).waitFor();
    await shot(page, '05b-follow-up-feedback');
  });

  await t.test('back navigation is counted, not followed', async () => {
    const before = await page.locator('.integrity').innerText();
    assert.match(before, /Warnings: 0/);
    await page.goBack();
    await waitFor(async () => /Warnings: 1 — You tried to go back/.test(await page.locator('.integrity').innerText()), {
      timeoutMs: 10000,
      what: 'the back-navigation warning',
    }).catch(async (err) => {
      throw new Error(`${err.message}; integrity bar says: ${await page.locator('.integrity').innerText()}`);
    });
    assert.equal(new URL(page.url()).pathname, `/interview/${encodeURIComponent(interviewId)}`);
    await page.getByText('Question 3 of 3', { exact: true }).waitFor();
  });

  await t.test('dictate the last answer with the browser\'s recognizer; the feedback quotes it and shows its delivery', async () => {
    const config = await (await page.request.get('/api/config')).json();
    assert.equal(config.voice.transcribe, false, 'this walk runs without server speech-to-text');
    const dictate = page.getByRole('button', { name: 'Dictate answer' });
    await dictate.waitFor();
    assert.match(await page.locator('#dictate-note').innerText(), /browser's speech recognition, which may send audio to the browser's vendor/);
    await dictate.click();
    await page.getByRole('status').filter({ hasText: 'Listening' }).waitFor();
    await waitFor(async () => (await page.getByLabel('Your answer', { exact: true }).inputValue()).includes('Postgres with 3 replicas'), { what: 'the dictated text in the answer box' });
    await shot(page, '06b-dictating');
    // Spoken for as long as a person takes to say it (250 words a minute),
    // so the pace is a real figure: an answer "spoken" faster than anyone
    // speaks gets no delivery figures.
    const words = (await page.getByLabel('Your answer', { exact: true }).inputValue()).split(/\s+/).length;
    await new Promise((r) => setTimeout(r, Math.ceil((words * 60 * 1000) / 250)));
    await page.getByRole('button', { name: 'Stop dictating' }).click();
    await dictate.waitFor();
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    const sent = JSON.parse(res.request().postData());
    assert.ok(sent.recordingSeconds >= 1 && sent.recordingSeconds < 90, `recordingSeconds ${sent.recordingSeconds}`);
    await page.getByRole('heading', { name: 'Feedback on question 3' }).waitFor();
    const feedback = page.locator('.feedback');
    await feedback.getByRole('heading', { name: 'Delivery' }).waitFor();
    assert.match(await feedback.locator('.delivery').innerText(), /words per minute[\s\S]*“um” ×1/);
    const quotes = await feedback.locator('blockquote.quote').allInnerTexts();
    assert.ok(quotes.length >= 1, 'at least one point quotes the answer');
    for (const q of quotes) assert.ok(sent.answer.includes(q.replace(/^“|”$/g, '')), `quote ${q} is not in the answer`);
    await shot(page, '06c-spoken-feedback');
    await answerFollowUps(page, 'All 3 questions answered');
  });

  await t.test('finish', async () => {
    await page.getByRole('button', { name: 'Finish and see my report' }).click();
    await page.waitForURL(/\/report\//);
  });

  await t.test('read the report', async () => {
    await page.getByRole('heading', { name: `Interview report: ${role}` }).waitFor();
    const overall = await page.locator('.report-scores .overall strong').innerText();
    assert.match(overall, /^\d{1,3}$/);
    const bars = await page.locator('.chart rect.bar').count();
    assert.equal(bars, 3, 'overall, technical accuracy and communication bars');
    for (const h of ['Strengths', 'Weaknesses', 'Suggested topics', 'Job requirements', 'Question by question', 'Integrity warnings', 'Share this report']) {
      await page.getByRole('heading', { name: h, exact: true }).waitFor();
    }
    assert.equal(await page.locator('.results > li').count(), 3, 'three main questions; follow-ups are inside them');
    // Summary first; each question collapsed to its score and one line.
    const box = async (sel) => (await page.locator(sel).first().boundingBox()).y;
    assert.ok((await box('.report-scores')) < (await box('.results')), 'the summary comes before the questions');
    assert.equal(await page.locator('.results details[open]').count(), 0, 'questions start collapsed');
    for (const sum of await page.locator('.results > li > details > summary').all()) {
      assert.match(await sum.innerText(), /^Question \d: [\s\S]+(\d{1,3}\/100|Not scored)[\s\S]+\S/);
    }
    await shot(page, '07a-report-collapsed');
    const first = page.locator('.results > li').first();
    await first.locator('summary').first().click();
    assert.match(await first.innerText(), /Your first try:[\s\S]*Your second try/);
    assert.match(await first.locator('.counted').innerText(), /^Counted: your second try/);
    const second = page.locator('.results > li').nth(1);
    await second.locator('summary').first().click();
    assert.ok((await second.locator('.follow-up').count()) >= 1, 'the follow-up is shown with its question');
    // Each quote once.
    const quotes = await page.locator('.results blockquote.quote:visible').allInnerTexts();
    for (const li of await page.locator('.results > li').all()) {
      const qs = await li.locator('.evaluation:visible').first().locator('blockquote.quote').allInnerTexts();
      assert.equal(new Set(qs).size, qs.length, `a quote repeated in one evaluation: ${qs}`);
    }
    assert.ok(quotes.length >= 1);
    // Every requirement no answer touched is a weakness.
    const weaknesses = await page.locator('.columns .card', { hasText: 'Weaknesses' }).innerText();
    for (const li of await page.locator('.requirements li.uncovered .req-text').allInnerTexts()) assert.ok(weaknesses.includes(li), `${li} is not among the weaknesses: ${weaknesses}`);
    // The requirements, with the answers that covered each: the second
    // try speaks to the PostgreSQL one.
    const reqs = page.locator('.requirements li');
    assert.equal(await reqs.count(), 3);
    assert.match(await reqs.nth(1).innerText(), /PostgreSQL[\s\S]*Covered by /);
    assert.match(await page.locator('section[aria-labelledby="integrity-title"]').innerText(), /1 warning during this interview/);
    await shot(page, '07-report');
    // On a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await shot(page, '07b-report-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.top').isVisible(), false, 'navigation is not printed');
    assert.equal(await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible(), false);
    assert.equal(await page.locator('.share').isVisible(), false, 'the share controls are not printed');
    assert.equal(await page.locator('.requirements').isVisible(), true);
    await shot(page, '08-report-print');
    await page.emulateMedia({ media: 'screen' });
  });

  await t.test('share the report: a fresh browser without cookies reads it; revoked, it is gone', async () => {
    await page.getByRole('button', { name: 'Create a share link' }).click();
    const input = page.locator('#share-url');
    await input.waitFor();
    const url = await input.inputValue();
    assert.match(url, /\/shared\/[A-Za-z0-9_-]{43}$/);
    await shot(page, '08b-share-link');

    const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    t.after(() => browser.close());
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    let expected = new Set();
    const requests = [];
    const view = await fresh.newPage();
    view.on('request', (r) => requests.push(new URL(r.url()).pathname));
    view.on('console', (m) => {
      if (m.type() !== 'error') return;
      const status = /status of (\d{3})/.exec(m.text());
      if (status && expected.has(Number(status[1]))) return;
      errors.push(m.text());
    });
    view.on('pageerror', (err) => errors.push(err.message));
    await view.goto(url);
    await view.getByRole('heading', { name: `Interview report: ${role}` }).waitFor();
    assert.deepEqual(await fresh.cookies(), [], 'no cookie in the fresh browser');
    assert.match(await view.locator('.notice').innerText(), /read-only/);
    assert.equal(await view.getByRole('navigation', { name: 'Main' }).count(), 0, 'no account navigation');
    assert.equal(await view.locator('.results > li').count(), 3);
    assert.equal(await view.locator('.requirements li').count(), 3);
    assert.equal(await view.getByRole('button', { name: /share|Try this question again/i }).count(), 0, 'nothing to change from a shared link');
    assert.ok(!requests.includes('/api/auth/me'), 'the shared page does not ask who is signed in');
    // Only what the share panel promises: no email, not even the name.
    const text = await view.locator('body').innerText();
    assert.ok(!text.includes(email), 'no email on the shared page');
    assert.ok(!text.includes('Ada Lovelace'), 'no name on the shared page');
    // Written for its reader: the candidate's answers, not "your".
    await view.locator('.results > li summary').first().click();
    const opened = await view.locator('.results > li').first().innerText();
    assert.match(opened, /The candidate's first try:/);
    assert.doesNotMatch(opened, /Your (answer|first try|second try)/);
    await shot(view, '17-shared');
    await view.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(view);
    await shot(view, '17b-shared-390');
    await view.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Stop sharing' }).click();
    await page.getByRole('status').filter({ hasText: 'the link no longer works' }).waitFor();
    expected = new Set([404]);
    await view.reload();
    await view.getByRole('heading', { name: 'Shared report not available' }).waitFor();
    await shot(view, '18-shared-revoked');
    assert.deepEqual(errors, []);
  });

  await t.test('a blocked microphone, noise and gibberish: not scored, not "spoken"', async () => {
    // A second, shorter interview finished later must come first in history.
    await page.goto('/');
    await page.getByLabel('Role you are applying for').fill('Frontend developer');
    await page.getByLabel('Number of questions').fill('2');
    await page.getByLabel('Medium').check();
    await page.getByLabel('Follow-up questions').selectOption('0');
    await page.getByLabel('Use full screen during the interview').uncheck();
    await page.getByLabel('Job description (optional)').fill('Frontend developer, design system team.\n- Accessibility audits with screen readers\n- Component libraries in React');
    await page.getByRole('button', { name: 'Start interview' }).click();
    await page.getByText('Question 1 of 2', { exact: true }).waitFor();
    // The microphone is blocked: dictation says so and hears nothing.
    await page.evaluate(() => localStorage.setItem('e2e-mic-blocked', '1'));
    await page.getByRole('button', { name: 'Dictate answer' }).click();
    await page.getByRole('alert').filter({ hasText: 'microphone is blocked' }).waitFor();
    await page.evaluate(() => localStorage.removeItem('e2e-mic-blocked'));
    await shot(page, '09c-microphone-blocked');
    // Then a typed answer with nothing in it but the sounds of hesitation.
    await page.getByLabel('Your answer', { exact: true }).fill('Um, uh, hmm.');
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    assert.equal(JSON.parse(res.request().postData()).recordingSeconds, undefined, 'a typed answer is not sent as spoken');
    const ev = (await res.json()).evaluation;
    assert.equal(ev.delivery ?? null, null);
    await page.getByText('Not enough to score.').waitFor();
    assert.equal(await page.locator('.feedback').getByRole('heading', { name: 'Delivery' }).count(), 0, 'no delivery figures for a typed answer');
    await shot(page, '09d-noise');
    // Keyboard mashing is not scored either, and the page says so.
    await page.getByLabel('Your answer', { exact: true }).fill('asdkjh qwe zxcmnb');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Feedback on question 2' }).waitFor();
    await page.getByText('Not enough to score.').waitFor();
    assert.equal(await page.locator('.feedback .scores').count(), 0, 'no scores for an answer with nothing to score');
    await shot(page, '09a-not-enough-to-score');
    await page.getByRole('button', { name: 'Finish and see my report' }).click();
    await page.getByRole('heading', { name: 'Interview report: Frontend developer' }).waitFor();
    // Nothing scored: no overall score, not a 0.
    assert.match(await page.locator('.report-scores .overall').innerText(), /^Not scored:/);
    assert.equal(await page.locator('.chart rect.bar').count(), 0);
    // The description's requirements no answer touched are weaknesses and
    // topics to study, whatever else the report says.
    assert.match(await page.locator('.columns .card', { hasText: 'Weaknesses' }).innerText(), /No answer touched 2 of the job description's 2 requirements/);
    assert.match(await page.locator('.columns .card', { hasText: 'Suggested topics' }).innerText(), /Accessibility audits with screen readers/);
    await shot(page, '09e-report-nothing-scored');
  });

  await t.test('find it in history, newest first, and open its report', async () => {
    await page.goto('/history');
    await page.getByRole('heading', { name: 'Your completed interviews' }).waitFor();
    // The heading comes before the list has loaded.
    await page.locator('.history .h-role').first().waitFor();
    const roles = await page.locator('.history .h-role').allInnerTexts();
    assert.deepEqual(roles, ['Frontend developer', role]);
    // The interview with nothing scored says so, and is not drawn as 0.
    assert.equal(await page.locator('.history .h-score').first().innerText(), 'Not scored');
    // Progress: a line per score across the scored interviews, and the
    // same figures as a table; the points are numbered.
    assert.equal(await page.locator('.progress-chart svg .series').count(), 3);
    assert.equal(await page.locator('.progress-chart svg circle').count(), 3);
    assert.deepEqual(await page.locator('.progress-chart svg text.seq').allTextContents(), ['1']);
    await page.getByText('Show the scores as a table').click();
    assert.equal(await page.locator('.as-table tbody tr').count(), 1);
    assert.match(await page.locator('.as-table tbody tr').first().innerText(), new RegExp(role));
    assert.match(await page.locator('.weakest').innerText(), /Weakest area: (Technical accuracy|Communication)/);
    // The legend's entries are one size; its tick labels readable.
    const sizes = await page.locator('.progress-chart .legend li').evaluateAll((els) => els.map((el) => getComputedStyle(el).fontSize));
    assert.equal(new Set(sizes).size, 1, `legend font sizes ${sizes}`);
    await page.setViewportSize({ width: 390, height: 844 });
    const tick = await page.locator('.progress-chart text.tick').first().boundingBox();
    assert.ok(tick.height >= 9, `axis text ${tick.height} px high on a phone`);
    await shot(page, '09f-history-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, '09-history');
    await page.locator('.history a', { hasText: role }).click();
    await page.getByRole('heading', { name: `Interview report: ${role}` }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/report/${encodeURIComponent(interviewId)}`);
    assert.equal(await page.locator('.results > li').count(), 3);
  });

  await t.test('"practise this" fills the setup in', async () => {
    await page.goto('/history');
    const area = (await page.locator('.weakest strong').innerText()).toLowerCase();
    await page.getByRole('link', { name: 'Practise this' }).click();
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    assert.equal(await page.getByLabel('Role you are applying for').inputValue(), role);
    assert.equal(await page.getByLabel('Follow-up questions').inputValue(), '2');
    assert.equal(await page.locator('input[name="difficulty"]:checked').count(), 1);
    assert.match(await page.locator('.notice.focus').innerText(), new RegExp(`Practise: ${area}`));
    await shot(page, '09b-practise-this');
  });

  await t.test('pages fit 375 px without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [path, heading, name] of [
      [`/report/${encodeURIComponent(interviewId)}`, `Interview report: ${role}`, '10-report-375'],
      ['/history', 'Your completed interviews', '11-history-375'],
      ['/', 'Set up your interview', '12-setup-375'],
    ]) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).waitFor();
      await noHorizontalScroll(page);
      await shot(page, name);
    }
    await page.getByLabel('Role you are applying for').fill('Data engineer with a rather long job title for a narrow screen');
    await page.getByLabel('Use full screen during the interview').uncheck();
    await page.getByLabel('Job description (optional)').fill(jobDescription);
    await page.getByRole('button', { name: 'Start interview' }).click();
    await page.getByText('Question 1 of 5', { exact: true }).waitFor();
    await noHorizontalScroll(page);
    await shot(page, '13-interview-375');

    // A browser without speech recognition shows no microphone at all.
    await page.evaluate(() => localStorage.setItem('e2e-no-recognizer', '1'));
    await page.reload();
    await page.getByText('Question 1 of 5', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Dictate|Record/ }).count(), 0, 'no microphone without a recognizer');
    assert.doesNotMatch(await page.locator('#answer-hint').innerText(), /speak/);
    await shot(page, '13b-no-microphone-375');
    await page.evaluate(() => localStorage.removeItem('e2e-no-recognizer'));
  });

  await t.test('interviews in progress are listed to resume or discard', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Interviews in progress' }).waitFor();
    const rows = page.locator('.active-list li');
    assert.equal(await rows.count(), 1, 'the interview left at question 1 is in progress');
    assert.match(await rows.first().innerText(), /Data engineer[\s\S]*Question 1 of 5/);
    await shot(page, '14-active');
    await rows.first().getByRole('link', { name: 'Resume' }).click();
    await page.getByText('Question 1 of 5', { exact: true }).waitFor();
    await page.goto('/');
    await page.getByRole('button', { name: /^Discard the Data engineer/ }).click();
    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await page.getByRole('heading', { name: 'Interviews in progress' }).waitFor({ state: 'detached' });
    assert.deepEqual(await (await page.request.get('/api/interview/active')).json(), []);
  });

  await t.test('a session that ends mid-page signs the page out once, says why, and comes back after signing in', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    // The session cookie goes (expired, revoked elsewhere); the page does
    // not know until its next call.
    await context.clearCookies({ name: 'session' });
    expectedStatuses = new Set([401]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Your session ended, so you were signed out' }).waitFor();
    await shot(page, '14b-session-ended');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Back where the lost session found the page, with its data.
    await page.getByRole('heading', { name: 'Your completed interviews' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/history');
    await page.locator('.history .h-role').first().waitFor();
    expectedStatuses = new Set();
  });

  await t.test('the account page changes the password and signs out everywhere', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    assert.ok((await page.locator('main').innerText()).includes(email), 'the page names the account');
    // A wrong current password is said on the page; the session stays.
    expectedStatuses = new Set([403]);
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    // A confirmation that differs is caught before anything is sent.
    await page.getByLabel('Confirm new password').fill('a brand new passwort');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'differ' }).waitFor();
    await page.getByLabel('Confirm new password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'incorrect' }).waitFor();
    expectedStatuses = new Set();
    await page.getByLabel('Current password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
    assert.equal((await page.request.get('/api/auth/me')).status(), 200, 'this session survives its own password change');
    await shot(page, '15-account');
    await page.setViewportSize({ width: 375, height: 800 });
    await noHorizontalScroll(page);
    await shot(page, '16-account-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The sign-in page says what happened.
    await page.getByRole('status').filter({ hasText: 'signed out on every device' }).waitFor();
    await shot(page, '16b-signed-out-everywhere');
    expectedStatuses = new Set([401]);
    assert.equal((await page.request.get('/api/auth/me')).status(), 401);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    expectedStatuses = new Set();
  });

  await t.test('unknown API paths stay JSON 404s; deep links load the app', async () => {
    const api = await page.request.get('/api/does-not-exist');
    assert.equal(api.status(), 404);
    assert.match(api.headers()['content-type'], /application\/json/);
    assert.ok((await api.json()).error, 'pinned error body');
    const deep = await page.request.get('/report/some-id');
    assert.equal(deep.status(), 200);
    assert.match(await deep.text(), /<div id="root">/);
  });

  // A person's interview, as the issue that asked for it tells it: a
  // dictation that caught nothing and a strong second try, an answer about
  // a hiking trip instead of the question, a hedge, and a follow-up; with
  // the keyboard only, full screen turned off, answering quickly.
  const walk = { id: '', strong: '', strongScore: 0, offTopicScore: 0, hedge: '', followUp: '' };
  await t.test('a person\'s interview: Tab through every control records no warning; full screen off says nothing of it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    assert.equal(await page.getByLabel('Use full screen during the interview').isChecked(), false, 'the last choice is the default');
    await page.getByLabel('Role you are applying for').fill('Backend engineer');
    await page.getByLabel('Number of questions').fill('3');
    await page.getByLabel('Medium').check();
    await page.getByRole('button', { name: 'Start interview' }).click();
    await page.getByText('Question 1 of 3', { exact: true }).waitFor();
    walk.id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    assert.match(await page.locator('.integrity').innerText(), /Warnings: 0/);
    await tabThrough(page);
    assert.doesNotMatch(await page.locator('.integrity').innerText(), /full screen/i);
    assert.equal(await page.getByRole('button', { name: 'Enter full screen' }).count(), 0);
  });

  await t.test('a person\'s interview: a first answer with nothing to score, then a second try, said in words', async () => {
    // Dictation that caught only the sounds of hesitation, sent as it is.
    await page.getByLabel('Your answer', { exact: true }).fill('Um, uh, hmm.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Feedback on question 1' }).waitFor();
    await page.getByText('Not enough to score.').waitFor();
    await tabThrough(page);
    await page.getByRole('button', { name: 'Try this question again' }).click();
    walk.strong = strongAnswer(await page.locator('.feedback .asked').innerText());
    await page.getByLabel('Answer the same question again, using the feedback above').fill(walk.strong);
    await page.getByRole('button', { name: 'Submit second try' }).click();
    const change = page.locator('.score-change');
    await change.waitFor();
    const said = await change.innerText();
    const m = /^Your first answer had nothing to score; this one scores (\d+)\. The better of your two answers counts\.$/.exec(said);
    assert.ok(m, `the second try reads: ${said}`);
    walk.strongScore = Number(m[1]);
    assert.ok(walk.strongScore >= 60, `a strong answer scored ${walk.strongScore}`);
    assert.doesNotMatch(said, /→|\+\d|\b0\b/);
    await assertOwnWords(page.locator('.feedback .second-try .evaluation'), walk.strong, 'the second try');
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await shot(page, '19-second-try-after-nothing-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await answerFollowUps(page, 'Question 2 of 3');
  });

  await t.test('a person\'s interview: an answer about something else is scored low, said to be off-topic, and gets no follow-up', async () => {
    const hiking =
      'Last summer I walked the Tour du Mont Blanc with two friends. I booked the mountain huts four months in advance, because they fill up quickly in July, ' +
      'and we carried light packs of about seven kilos each. The hardest day was the climb to the Col de la Seigne in the rain, but the view of the glacier made it worth it.';
    await page.getByLabel('Your answer', { exact: true }).fill(hiking);
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Feedback on question 2' }).waitFor();
    const feedback = page.locator('.feedback');
    assert.equal(await feedback.getByText('Not enough to score.').count(), 0, 'an answer that misses the question is still an answer');
    walk.offTopicScore = Number((await feedback.locator('dl.scores > div').first().locator('dd').innerText()).replace('/100', ''));
    assert.ok(walk.offTopicScore <= 35, `an off-topic answer scored ${walk.offTopicScore}`);
    assert.match(await feedback.locator('.verdict.off-topic').innerText(), /^Off the question\. This answer does not address the question asked/);
    await assertOwnWords(feedback.locator('.evaluation'), hiking, 'the off-topic answer');
    await page.getByText('Question 3 of 3', { exact: true }).waitFor();
    assert.equal(await page.locator('form.follow-up-question').count(), 0, 'no follow-up after an off-topic answer');
    await shot(page, '20-off-topic');
  });

  await t.test('a person\'s interview: a hedge is not a trade-off; its follow-up is judged on its own words', async () => {
    // A hedge as people say it, naming the question and saying nothing on it.
    const asked = (await page.locator('#question-title').innerText()).trim().replace(/[?.]+$/, '');
    walk.hedge = `I'm not totally sure how I would answer "${asked}", but I think I would try a few things and see what works.`;
    await page.getByLabel('Your answer', { exact: true }).fill(walk.hedge);
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Feedback on question 3' }).waitFor();
    const feedback = page.locator('.feedback');
    await feedback.locator('dl.scores').waitFor();
    const wentWell = feedback.locator('h3', { hasText: 'What went well' }).locator('xpath=following-sibling::ul[1]');
    const went = (await wentWell.count()) ? await wentWell.innerText() : '';
    assert.doesNotMatch(went, /trade-off/i, 'a hedge is credited as a trade-off');
    await assertOwnWords(feedback.locator('.evaluation'), walk.hedge, 'the hedge');
    await page.locator('form.follow-up-question .progress', { hasText: /^Follow-up to question 3/ }).waitFor();

    // The follow-up is dictated, for as long as a person takes to say it.
    await page.getByRole('button', { name: 'Dictate answer' }).click();
    await waitFor(async () => (await page.getByLabel('Your answer', { exact: true }).inputValue()).includes('Postgres with 3 replicas'), { what: 'the dictated follow-up' });
    const words = wordCount(await page.getByLabel('Your answer', { exact: true }).inputValue());
    await new Promise((r) => setTimeout(r, Math.ceil((words * 60 * 1000) / 150)));
    await page.getByRole('button', { name: 'Stop dictating' }).click();
    await page.getByRole('button', { name: 'Dictate answer' }).waitFor();
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    assert.equal(res.status(), 200, 'answering quickly is not refused');
    const sent = JSON.parse(res.request().postData());
    walk.followUp = sent.answer;
    await page.getByRole('heading', { name: 'Feedback on the follow-up to question 3' }).waitFor();
    // Its quotes are its own words, never the hedge's; its delivery is
    // its own too: the pace of this answer's words over its seconds.
    await assertOwnWords(feedback.locator('.evaluation').first(), walk.followUp, 'the follow-up');
    for (const q of await quotesIn(feedback)) assert.ok(!walk.hedge.includes(q) || walk.followUp.includes(q), `the follow-up quotes the earlier answer: ${q}`);
    const pace = /(\d+) words per minute/.exec(await feedback.locator('.delivery').innerText());
    assert.ok(pace, 'the dictated follow-up shows its pace');
    const expected = (wordCount(walk.followUp) * 60) / sent.recordingSeconds;
    assert.ok(Math.abs(Number(pace[1]) - expected) <= expected * 0.2, `pace ${pace[1]} words per minute; this answer's words over its seconds make ${expected.toFixed(0)}`);
    await page.getByRole('heading', { name: 'All 3 questions answered' }).waitFor();
    await shot(page, '21-follow-up-own-words');
    // Nothing on the way counted as leaving, and after a reload the page
    // still says nothing of full screen.
    await page.reload();
    await page.getByRole('heading', { name: 'All 3 questions answered' }).waitFor();
    assert.match(await page.locator('.integrity').innerText(), /Warnings: 0/);
    assert.doesNotMatch(await page.locator('.integrity').innerText(), /full screen/i);
    assert.equal(await page.getByRole('button', { name: 'Enter full screen' }).count(), 0);
  });

  await t.test('a person\'s interview: the report counts the off-topic answer and says what the second try replaced', async () => {
    await page.getByRole('button', { name: 'Finish and see my report' }).click();
    await page.getByRole('heading', { name: 'Interview report: Backend engineer' }).waitFor();
    const overallText = await page.locator('.report-scores .overall').innerText();
    const overall = Number(await page.locator('.report-scores .overall strong').innerText());
    assert.doesNotMatch(overallText, /not scored/, 'every answer of this interview was scored');
    assert.ok(overall < walk.strongScore, `the overall ${overall} is not below the strong answer's ${walk.strongScore}: the off-topic answer was not counted`);
    const rows = page.locator('.results > li');
    assert.equal(await rows.count(), 3);
    assert.match(await rows.nth(1).locator('summary .q-score').innerText(), new RegExp(`^${walk.offTopicScore}/100$`));
    await rows.first().locator('summary').first().click();
    const first = await rows.first().innerText();
    assert.match(first, new RegExp(`Your second try \\(${walk.strongScore}; your first answer had nothing to score\\)`));
    assert.match(await rows.first().locator('.counted').innerText(), new RegExp(`^Counted: your second try \\(${walk.strongScore}; your first answer had nothing to score\\)\\.$`));
    assert.doesNotMatch(first, /\+\d+ on your first|→/);
    await rows.nth(2).locator('summary').first().click();
    const followUp = rows.nth(2).locator('.follow-up');
    await assertOwnWords(followUp.locator('.evaluation').first(), walk.followUp, 'the follow-up in the report');
    assert.match(await page.locator('section[aria-labelledby="integrity-title"]').innerText(), /No warnings recorded|0 warnings during this interview/);
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await shot(page, '22-report-person-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/history');
    await page.locator('.history .h-score').first().waitFor();
    assert.equal(squash(await page.locator('.history .h-score').first().innerText()), `${overall}/100`, 'history shows the overall the report shows');
  });

  await t.test('answering every 10 seconds for a whole interview is never refused', async () => {
    // A fresh account drives a 20-question interview through the API, the
    // database's clock moved 10 s on before each answer (the user's buckets
    // are dated 10 s earlier): what a person answering every 10 s meets.
    const api = await request.newContext({ baseURL: svc.base });
    t.after(() => api.dispose());
    const who = `pace.${randomBytes(4).toString('hex')}@example.com`;
    const reg = await api.post('/api/auth/register', { data: { fullName: 'Pace', email: who, password: 'correct horse battery' } });
    assert.equal(reg.status(), 201);
    const uid = (await reg.json()).user._id;
    const started = await api.post('/api/interview/start', { data: { candidateName: 'Pace', role: 'Backend engineer', experience: 'Senior (6–9 years)', difficulty: 'medium', totalQuestions: 20, followUps: 0 } });
    assert.equal(started.status(), 201);
    const { sessionId } = await started.json();
    let question = (await started.json()).question;
    for (let i = 1; question; i++) {
      pg.sql(`UPDATE quota_buckets SET updated_at = updated_at - interval '10 seconds' WHERE user_id = '${uid}'`);
      const r = await api.post('/api/interview/answer', {
        data: { sessionId, questionId: question.id, answer: 'I would measure first, then fix the slowest part; for example an index cut a query from 900 ms to 20 ms. The trade-off is slower writes.' },
      });
      assert.equal(r.status(), 200, `answer ${i}, 10 s after the one before, was refused: ${await r.text()}`);
      question = (await r.json()).nextQuestion;
      assert.ok(i <= 20, 'more questions than the interview has');
    }
  });

  await t.test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
