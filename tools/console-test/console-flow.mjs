// The web console in headless Chromium, as an operator uses it: sign in with the keyboard, create a
// client with two roles and copy its key once, find the creation in the audit trail, close and
// reopen a deduction, sign out, sign in as the new read-only client and meet a refusal, sign out.
// Each page is saved as a screenshot and checked by axe-core (no violation allowed).
//
// Run by veil-cli's ConsoleBrowserIT against a real `veil serve`; by hand:
//   CONSOLE_URL=http://127.0.0.1:9091/ ADMIN_KEY_FILE=data/admin.key \
//     SCREENSHOT_DIR=/tmp/shots node tools/console-test/console-flow.mjs
// Environment: CONSOLE_URL, ADMIN_KEY_FILE, SCREENSHOT_DIR, RESULT_FILE (optional: JSON of what
// the run made, for the caller's own checks), CHROMIUM (default /usr/bin/chromium).
// Exits 0 when every step passed, 1 with the failed step's reason otherwise.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import playwright from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const base = new URL(required('CONSOLE_URL'));
const adminKey = readFileSync(required('ADMIN_KEY_FILE'), 'utf8').trim();
const shots = required('SCREENSHOT_DIR');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
mkdirSync(shots, { recursive: true });

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

const cspViolations = [];
let shotNumber = 0;
const pagesChecked = [];

/** Saves a screenshot of the page as NN-name.png and fails on any accessibility violation. */
async function look(page, name) {
  shotNumber += 1;
  const file = join(shots, `${String(shotNumber).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  check(found.length === 0, `accessibility violations on ${name}:\n  ${found.join('\n  ')}`);
  pagesChecked.push(name);
}

async function text(page) {
  return page.locator('main').innerText();
}

async function nav(page, label) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await page.waitForLoadState('load');
}

/** Signs in through the form with the keyboard only: tab to the key, type it, press Enter. */
async function signInWithKeyboard(page, key) {
  await page.goto(base.href);
  check(new URL(page.url()).pathname === '/sign-in', `not sent to sign-in, but to ${page.url()}`);
  for (let tabs = 0; tabs < 10; tabs += 1) {
    if (await page.evaluate(() => document.activeElement?.id === 'key')) break;
    await page.keyboard.press('Tab');
  }
  check(await page.evaluate(() => document.activeElement?.id === 'key'), 'Tab never reached the key field');
  await page.keyboard.type(key);
  await Promise.all([page.waitForURL((u) => u.pathname === '/'), page.keyboard.press('Enter')]);
}

async function signOut(page) {
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/sign-in'),
    page.getByRole('button', { name: 'Sign out' }).click(),
  ]);
  check((await text(page)).includes('You are signed out.'), 'no signed-out notice');
}

const browser = await playwright.chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
});
const result = {};
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.origin });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });

  // 1. Sign in as the admin, with the keyboard.
  await page.goto(new URL('/sign-in', base).href);
  await look(page, 'sign-in');
  await signInWithKeyboard(page, adminKey);
  check((await text(page)).includes('Ready'), 'the overview does not say the node is ready');
  await look(page, 'overview');

  // 2. Create a client with two roles; the key and secret are shown once; copy the key.
  await nav(page, 'Clients');
  await look(page, 'clients');
  await page.getByLabel('Name', { exact: true }).fill('auditor');
  await page.getByLabel('DEDUCTION_READER').check();
  await page.getByLabel('AUDIT_READER').check();
  await page.locator('#create-reason').fill('Read-only operator, ticket OPS-9');
  await page.getByRole('button', { name: 'Create client' }).click();
  await page.waitForLoadState('load');
  check((await text(page)).includes('Client created'), 'no "Client created" page');
  const key = (await page.locator('#secret-1').innerText()).trim();
  check(/^vk1\./.test(key), 'the page shows no API key');
  const copy = page.getByRole('button', { name: 'Copy API key' });
  await copy.click();
  await page.getByText('Copied.').waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  check(copied === key, 'the clipboard does not hold the key shown');
  await look(page, 'client-created');
  result.auditorKey = key;

  // ... and never again: not after leaving and coming back, not on a reload.
  await page.getByRole('link', { name: 'Done' }).click();
  await page.waitForURL((u) => u.pathname === '/clients');
  check(!(await page.content()).includes(key), 'the client list shows the key');
  await page.goBack().catch(() => {}); // a POST answer with no-store: Chromium may refuse to show it
  check(!(await page.content()).includes(key), 'going back shows the key again');
  await page.goto(new URL('/clients', base).href);
  await page.getByRole('link', { name: 'auditor' }).click();
  check(!(await page.content()).includes(key), 'the client page shows the key');
  await look(page, 'client');

  // 3. The creation is in the audit trail, with the admin as actor and the reason.
  await nav(page, 'Audit trail');
  await page.getByLabel('Action').selectOption('CreateClient');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForLoadState('load');
  const row = page.locator('table.audit tbody tr').first();
  const rowText = await row.innerText();
  check(
    rowText.includes('CreateClient') && rowText.includes('auditor') && rowText.includes('1 admin')
      && rowText.includes('ticket OPS-9'),
    `the audit trail's newest CreateClient is not the console's: ${rowText}`,
  );
  check(!(await page.content()).includes(key), 'the audit trail shows the key');
  await look(page, 'audit-trail');

  // 4. Create a deduction, close it and open it again.
  await nav(page, 'Deductions');
  await page.getByLabel('Title').fill('Gym membership');
  await page.getByLabel('Pay method id', { exact: true }).fill('3');
  await page.getByRole('button', { name: 'Create deduction' }).click();
  await page.waitForURL((u) => /^\/deductions\/\d+$/.test(u.pathname));
  result.deductionId = Number(new URL(page.url()).pathname.split('/').pop());
  check((await text(page)).includes('NORMAL'), 'the new deduction is not open');
  await look(page, 'deduction');
  await page.getByRole('button', { name: 'Close deduction' }).click();
  await page.waitForLoadState('load');
  check((await text(page)).includes('was closed.') && (await text(page)).includes('EXPIRED'), 'not closed');
  await look(page, 'deduction-closed');
  await page.getByRole('button', { name: 'Open deduction' }).click();
  await page.waitForLoadState('load');
  check((await text(page)).includes('was opened.') && (await text(page)).includes('NORMAL'), 'not reopened');
  const story = await text(page);
  check(
    ['History', 'CREATED', 'CLOSED', 'OPENED'].every((w) => story.includes(w)),
    'the deduction page does not show its history',
  );
  await look(page, 'deduction-history');
  await nav(page, 'Deductions');
  check((await text(page)).includes('Gym membership'), 'the open list lacks the deduction');
  await page.getByLabel('Status').selectOption('any');
  await page.getByLabel('Pay method ids').fill('4');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForLoadState('load');
  check(!(await text(page)).includes('Gym membership'), 'the pay method filter did not narrow the list');
  await page.getByLabel('Pay method ids').fill('3');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForLoadState('load');
  check((await text(page)).includes('Gym membership'), 'the filtered list lacks the deduction');
  await look(page, 'deductions');

  // 5. The other pages, looked at and checked.
  await nav(page, 'Sites and sharing');
  await look(page, 'sites');
  await page.getByRole('link', { name: 'Site 1', exact: true }).click();
  await page.waitForLoadState('load');
  await look(page, 'site');
  await nav(page, 'Webhooks');
  await look(page, 'webhooks');
  await nav(page, 'Keys and salts');
  await look(page, 'keys-and-salts');
  await nav(page, 'Opt-outs');
  await page.locator('#lookup-value').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.waitForLoadState('load');
  check((await text(page)).includes('has not opted out'), 'no lookup answer');
  check(!(await page.content()).includes('nobody@example.com'), 'the answer repeats the email');
  await look(page, 'opt-outs');

  // 6. Sign out; sign in as the read-only client with the copied key; meet a refusal.
  await signOut(page);
  await look(page, 'signed-out');
  await signInWithKeyboard(page, copied);
  check((await text(page)).includes('needs the KEY_ADMIN role'), 'the overview shows keys to a reader');
  await nav(page, 'Deductions');
  await page.getByRole('link', { name: 'Gym membership' }).click();
  await page.waitForLoadState('load');
  const response = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Close deduction' }).click();
  check((await response).status() === 403, 'closing as a reader was not refused with 403');
  await page.waitForLoadState('load');
  check(
    (await text(page)).includes('Permission denied: CloseDeduction needs the DEDUCTION_WRITER role'),
    'no permission-denied page',
  );
  await look(page, 'permission-denied');
  await signOut(page);
  check(cspViolations.length === 0, `Content Security Policy violations:\n${cspViolations.join('\n')}`);
  result.pages = pagesChecked;
  if (process.env.RESULT_FILE) writeFileSync(process.env.RESULT_FILE, JSON.stringify(result));
  console.log(`console flow passed: ${pagesChecked.length} pages, each with a screenshot in ${shots}`);
} catch (e) {
  console.error(`console flow failed: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
