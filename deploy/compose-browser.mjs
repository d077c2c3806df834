// The web client of the compose stack in headless Chromium (playwright-core,
// taken from the web client's own dependencies), for TestComposeStack:
//   node deploy/compose-browser.mjs register BASE STATE   signs up a new
//     user through the page and keeps the browser's cookies in STATE;
//   node deploy/compose-browser.mjs signed-in BASE STATE  opens the page
//     with those cookies and expects the signed-in setup screen.
// Environment: WEB_DIR (interview/web, where playwright-core is
// installed), CHROMIUM (default /usr/bin/chromium).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const [mode, base, state] = process.argv.slice(2);
if (!['register', 'signed-in'].includes(mode) || !base || !state) {
  console.error('usage: compose-browser.mjs register|signed-in BASE STATE');
  process.exit(2);
}
const require = createRequire(join(process.env.WEB_DIR || 'interview/web', 'package.json'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const failures = [];
try {
  const context = await browser.newContext({ baseURL: base, storageState: mode === 'signed-in' ? state : undefined });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
  await page.goto('/');
  if (mode === 'register') {
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'I am new here' }).click();
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(`compose-${randomBytes(6).toString('hex')}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
    await context.storageState({ path: state });
  } else {
    await page.getByRole('heading', { name: 'Set up your interview' }).waitFor();
  }
} finally {
  await browser.close();
}
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`${mode}: ok`);
