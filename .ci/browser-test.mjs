// Browser test of the GraphiQL playground: starts the built okrgate binary
// with local playground assets, blocks every request that does not go to the
// server (no internet), opens the playground in headless Chromium, runs a
// query and checks the result text, and takes a screenshot.
//
// Environment: OKRGATE_BIN (binary), ASSETS (assets dir), CHROMIUM
// (executable, default /usr/bin/chromium), SCREENSHOT (png path),
// PLAYWRIGHT_CORE (path of the playwright-core package).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');

const bin = process.env.OKRGATE_BIN;
const assets = process.env.ASSETS;
const shot = process.env.SCREENSHOT || 'playground.png';
if (!bin || !assets) throw new Error('OKRGATE_BIN and ASSETS are required');

const work = mkdtempSync(join(tmpdir(), 'okrgate-browser-'));
const server = spawn(bin, ['serve', '--demo', '--db', join(work, 'okr.db'), '--addr', '127.0.0.1:0', '--playground-assets', assets],
  { stdio: ['ignore', 'pipe', 'inherit'] });

function waitForServer() {
  return new Promise((resolve, reject) => {
    let out = '', base = '', token = '';
    const timer = setTimeout(() => reject(new Error('server did not start: ' + out)), 30000);
    server.stdout.on('data', (chunk) => {
      out += chunk;
      base ||= (out.match(/okrgate listening on (\S+)/) || [])[1] || '';
      token ||= (out.match(/demo admin token: (\S+)/) || [])[1] || '';
      if (base && token) { clearTimeout(timer); resolve({ base, token }); }
    });
    server.on('exit', (code) => reject(new Error('server exited ' + code + ': ' + out)));
  });
}

let browser;
let failed = false;
try {
  const { base, token } = await waitForServer();
  // A fresh profile (--user-data-dir) every run: Playwright takes it as the
  // first argument of launchPersistentContext.
  const context = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    extraHTTPHeaders: { Authorization: 'Bearer ' + token },
  });
  browser = context;
  const blocked = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === new URL(base).origin) return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  const query = '{ account { name } viewer { email } sessions { totalCount nodes { title } } }';
  await context.addInitScript((q) => { localStorage.setItem('graphiql:query', q); }, query);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(base + '/', { waitUntil: 'load' });
  await page.waitForSelector('.graphiql-container', { timeout: 30000 });
  await page.waitForSelector('.graphiql-execute-button', { timeout: 30000 });
  const responded = page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' &&
    (r.request().postData() || '').includes('account'), { timeout: 30000 });
  await page.click('.graphiql-execute-button');
  const resp = await responded;
  if (resp.status() !== 200) throw new Error('GraphQL answered HTTP ' + resp.status());
  await page.waitForFunction(() => {
    const el = document.querySelector('.graphiql-response');
    return el && el.textContent.includes('Demo Company') && el.textContent.includes('admin@demo.test');
  }, null, { timeout: 30000 });
  const text = await page.textContent('.graphiql-response');
  await page.screenshot({ path: shot, fullPage: true });
  if (blocked.length) throw new Error('the playground tried to reach the internet: ' + blocked.join(', '));
  if (errors.length) throw new Error('page errors: ' + errors.join('; '));
  console.log('playground OK: result contains "Demo Company" and "admin@demo.test"; screenshot ' + shot);
  console.log(text.replace(/\s+/g, ' ').slice(0, 300));
} catch (e) {
  failed = true;
  console.error('browser test FAILED:', e);
} finally {
  if (browser) await browser.close();
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
