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
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
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
  const child = spawn(bin, [], { env, cwd: mkdtempSync(join(tmpdir(), 'interview-e2e-cwd-')), stdio: ['ignore', 'pipe', 'pipe'] });
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
    stop: () =>
      new Promise((res) => {
        if (exited !== null) return res();
        child.once('exit', res);
        child.kill('SIGTERM');
      }),
  };
}

async function noHorizontalScroll(page) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(scroll <= client, `page scrolls horizontally: scrollWidth ${scroll} > clientWidth ${client} at ${page.url()}`);
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

test('interview web client end to end', { timeout: 300_000 }, async (t) => {
  mkdirSync(shots, { recursive: true });
  const bin = buildBinary();
  const pg = await startPostgres();
  t.after(() => pg.stop());
  const svc = await startService(bin, pg.url);
  t.after(() => svc.stop());

  const profile = mkdtempSync(join(tmpdir(), 'interview-e2e-chromium-'));
  t.after(() => rmSync(profile, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    baseURL: svc.base,
  });
  t.after(() => context.close());
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
    await page.getByLabel('Role you are applying for').fill(role);
    await page.getByLabel('Number of questions').fill('3');
    await page.getByLabel('Hard').check();
    await page.getByLabel('Use full screen during the interview').uncheck();
    await shot(page, '03-setup');
  });

  let firstQuestion = '';
  await t.test('start and answer the first question', async () => {
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
    await shot(page, '04-interview');

    // Submit is disabled while the answer is in flight.
    await page.route('**/api/interview/answer', async (route) => {
      await new Promise((r) => setTimeout(r, 700));
      await route.continue();
    });
    await page.getByLabel('Your answer').fill('GET reads a resource without side effects and can be cached; POST creates or changes state and sends its data in the body.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    const busy = page.getByRole('button', { name: 'Evaluating your answer…' });
    await busy.waitFor();
    assert.equal(await busy.isDisabled(), true);
    await page.getByRole('heading', { name: 'Feedback on question 1' }).waitFor();
    await page.unroute('**/api/interview/answer');
    await page.getByText('Question 2 of 3', { exact: true }).waitFor();
    assert.notEqual(await page.locator('#question-title').innerText(), firstQuestion);
    await shot(page, '05-feedback');
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
  });

  await t.test('a double submit shows "already being evaluated"', async () => {
    // An earlier submission of this answer holds a live claim: the state a
    // second tab or a retried request meets while the first is evaluated.
    pg.sql(`UPDATE interviews SET claim_token = gen_random_uuid(), answer_claimed_at = now() WHERE id = '${interviewId}'`);
    expectedStatuses = new Set([409]);
    const q = await page.locator('#question-title').innerText();
    await page.getByLabel('Your answer').fill('An index is a B-tree that avoids a full table scan, at the cost of slower writes.');
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    assert.equal(res.status(), 409);
    const info = page.getByRole('status').filter({ hasText: 'already being evaluated' });
    await info.waitFor();
    assert.equal(await page.locator('.question [role="alert"]').count(), 0, 'a 409 is not shown as a failure');
    assert.equal(await page.locator('#question-title').innerText(), q, 'the question stays');
    assert.notEqual(await page.getByLabel('Your answer').inputValue(), '', 'the answer stays in the box');
    await shot(page, '06-conflict');
    expectedStatuses = new Set();

    // Once that claim is gone the same answer goes through.
    pg.sql(`UPDATE interviews SET claim_token = NULL, answer_claimed_at = NULL WHERE id = '${interviewId}'`);
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByText('Question 3 of 3', { exact: true }).waitFor();
    assert.equal(await page.getByText('already being evaluated').count(), 0);
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
    await waitFor(async () => (await page.getByLabel('Your answer').inputValue()).includes('Postgres with 3 replicas'), { what: 'the dictated text in the answer box' });
    await shot(page, '06b-dictating');
    // Spoken for a while before stopping, so the pace is a real figure.
    await new Promise((r) => setTimeout(r, 1500));
    await page.getByRole('button', { name: 'Stop dictating' }).click();
    await dictate.waitFor();
    const [res] = await Promise.all([page.waitForResponse('**/api/interview/answer'), page.getByRole('button', { name: 'Submit answer' }).click()]);
    const sent = JSON.parse(res.request().postData());
    assert.ok(sent.recordingSeconds >= 1 && sent.recordingSeconds < 60, `recordingSeconds ${sent.recordingSeconds}`);
    await page.getByRole('heading', { name: 'All 3 questions answered' }).waitFor();
    await page.getByRole('heading', { name: 'Feedback on question 3' }).waitFor();
    const feedback = page.locator('.feedback');
    await feedback.getByRole('heading', { name: 'Delivery' }).waitFor();
    assert.match(await feedback.locator('.delivery').innerText(), /words per minute[\s\S]*“um” ×1/);
    const quotes = await feedback.locator('blockquote.quote').allInnerTexts();
    assert.ok(quotes.length >= 1, 'at least one point quotes the answer');
    for (const q of quotes) assert.ok(sent.answer.includes(q.replace(/^“|”$/g, '')), `quote ${q} is not in the answer`);
    await shot(page, '06c-spoken-feedback');
  });

  await t.test('finish', async () => {
    await page.getByRole('button', { name: 'Finish and see my report' }).click();
    await page.waitForURL(/\/report\//);
  });

  await t.test('read the report', async () => {
    await page.getByRole('heading', { name: `Interview report: ${role}` }).waitFor();
    const overall = await page.locator('.overall strong').innerText();
    assert.match(overall, /^\d{1,3}$/);
    const bars = await page.locator('.chart rect.bar').count();
    assert.equal(bars, 3, 'overall, technical accuracy and communication bars');
    for (const h of ['Strengths', 'Weaknesses', 'Suggested topics', 'Question by question', 'Integrity warnings']) {
      await page.getByRole('heading', { name: h, exact: true }).waitFor();
    }
    assert.equal(await page.locator('.results > li').count(), 3);
    assert.match(await page.locator('section[aria-labelledby="integrity-title"]').innerText(), /1 warning during this interview/);
    await shot(page, '07-report');
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.top').isVisible(), false, 'navigation is not printed');
    assert.equal(await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible(), false);
    await shot(page, '08-report-print');
    await page.emulateMedia({ media: 'screen' });
  });

  await t.test('find it in history, newest first, and open its report', async () => {
    // A second, shorter interview finished later must come first.
    await page.goto('/');
    await page.getByLabel('Role you are applying for').fill('Frontend developer');
    await page.getByLabel('Number of questions').fill('1');
    await page.getByLabel('Use full screen during the interview').uncheck();
    await page.getByRole('button', { name: 'Start interview' }).click();
    await page.getByText('Question 1 of 1', { exact: true }).waitFor();
    // Keyboard mashing is not scored, and the page says so.
    await page.getByLabel('Your answer').fill('asdkjh qwe zxcmnb');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByText('Not enough to score.').waitFor();
    assert.equal(await page.locator('.feedback .scores').count(), 0, 'no scores for an answer with nothing to score');
    await shot(page, '09a-not-enough-to-score');
    await page.getByRole('button', { name: 'Finish and see my report' }).click();
    await page.getByRole('heading', { name: 'Interview report: Frontend developer' }).waitFor();

    await page.goto('/history');
    await page.getByRole('heading', { name: 'Your completed interviews' }).waitFor();
    // The heading comes before the list has loaded.
    await page.locator('.history .h-role').first().waitFor();
    const roles = await page.locator('.history .h-role').allInnerTexts();
    assert.deepEqual(roles, ['Frontend developer', role]);
    await shot(page, '09-history');
    await page.locator('.history a', { hasText: role }).click();
    await page.getByRole('heading', { name: `Interview report: ${role}` }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/report/${encodeURIComponent(interviewId)}`);
    assert.equal(await page.locator('.results > li').count(), 3);
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

  await t.test('the account page changes the password and signs out everywhere', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    assert.ok((await page.locator('main').innerText()).includes(email), 'the page names the account');
    // A wrong current password is said on the page; the session stays.
    expectedStatuses = new Set([403]);
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a brand new password');
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

  await t.test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
