// Browser test of the GraphiQL playground, as a new user meets it with no
// internet: starts the built okrgate binary WITHOUT any assets flag (the
// embedded copy), blocks every request that does not go to the server, and
// in headless Chromium checks:
//
//  1. serve --demo on a new database: the page loads, the schema
//     introspection carries the prefilled demo token, the docs panel lists the
//     schema, and the example (the session tree query) runs;
//     Then the README's anonymous tree query replaces the editor's text and
//     runs: no stale operation name (SessionTree) is sent, the tree comes
//     back. The playground's link opens the REST API's reference
//     (/reference): Redoc renders the served OpenAPI document's operation
//     titles, shows the bearer scheme as "Bearer <token>", names no shared/
//     path, and loads nothing from elsewhere (the page's policy blocks the
//     logo Redoc's menu footer asks Redocly's CDN for);
//  2. the same database without --demo, a fresh browser profile: the page
//     explains how to authenticate; a token typed in the Headers tab is used
//     to re-fetch the schema and to run the example; after a reload the
//     introspection still carries the saved headers and the docs load; after
//     a second reload the Headers tab still holds the token.
//
//  3. a browser app on another origin (a dev server's, say): the server runs
//     with --cors-origins naming it; a page of that origin queries /graphql,
//     subscribes with the graphql-ws client (its browser bundle) and
//     receives the check-in it then records; a page of an origin not listed
//     can neither read a query's answer nor open the websocket.
//
// Screenshots go to $OUT (never the repository).
//
// Environment: OKRGATE_BIN (binary), CHROMIUM (default /usr/bin/chromium),
// OUT (screenshot directory), PLAYWRIGHT_CORE (path of playwright-core),
// GRAPHQL_WS (path of the graphql-ws package).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');

const bin = process.env.OKRGATE_BIN;
const out = process.env.OUT || join(tmpdir(), 'okrgate-ci');
if (!bin) throw new Error('OKRGATE_BIN is required');
mkdirSync(out, { recursive: true });

const work = mkdtempSync(join(tmpdir(), 'okrgate-browser-'));
const db = join(work, 'okr.db');
const timeout = 30000;

// startServer runs `okrgate serve` (no --playground-assets) and resolves
// with its address, and the demo token when it prints one.
function startServer(extra) {
  const server = spawn(bin, ['serve', '--db', db, '--addr', '127.0.0.1:0', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let text = '', base = '', token = '';
    const wantToken = extra.includes('--demo');
    const timer = setTimeout(() => reject(new Error('server did not start: ' + text)), timeout);
    server.stdout.on('data', (chunk) => {
      text += chunk;
      base ||= (text.match(/okrgate listening on (\S+)/) || [])[1] || '';
      token ||= (text.match(/demo admin token: (\S+)/) || [])[1] || '';
      if (base && (token || !wantToken)) { clearTimeout(timer); resolve({ server, base, token }); }
    });
    server.on('exit', (code) => reject(new Error('server exited ' + code + ': ' + text)));
  });
}

function stopServer(server) {
  return new Promise((resolve) => {
    if (server.exitCode !== null) return resolve();
    server.removeAllListeners('exit');
    server.on('exit', () => resolve());
    server.kill('SIGTERM');
  });
}

// openBrowser starts Chromium with a fresh profile; every request to
// another origin than base (and the app origins) is aborted and recorded.
async function openBrowser(profile, base, blocked, apps = []) {
  const context = await chromium.launchPersistentContext(join(work, profile), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === new URL(base).origin || apps.includes(url.origin)) return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  return context;
}

const isIntrospection = (r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' &&
  (r.request().postData() || '').includes('__schema');
const isTreeQuery = (r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' &&
  (r.request().postData() || '').includes('SessionTree');

// expectIntrospection waits for the schema fetch and checks it carried the
// token and succeeded.
async function expectIntrospection(resp, token, what) {
  const auth = (await resp.request().allHeaders())['authorization'] || '';
  if (auth !== 'Bearer ' + token) throw new Error(what + ': introspection sent Authorization ' + JSON.stringify(auth));
  if (resp.status() !== 200) throw new Error(what + ': introspection answered HTTP ' + resp.status());
}

// expectDocs opens the documentation explorer and checks it lists the schema.
async function expectDocs(page, what) {
  const docs = page.locator('.graphiql-doc-explorer');
  if (!(await docs.isVisible())) await page.click('[aria-label="Show Documentation Explorer"]');
  await page.waitForFunction(() => {
    const el = document.querySelector('.graphiql-doc-explorer');
    return el && /Root Types/.test(el.textContent) && /query:\s*Query/.test(el.textContent);
  }, null, { timeout });
  await page.locator('.graphiql-doc-explorer a', { hasText: 'Query' }).first().click();
  await page.waitForFunction(() => {
    const el = document.querySelector('.graphiql-doc-explorer');
    return el && el.textContent.includes('sessions') && el.textContent.includes('SessionConnection');
  }, null, { timeout });
  console.log(what + ': docs panel lists Query.sessions');
}

// runExample presses run and checks the session tree came back.
async function runExample(page, what) {
  const responded = page.waitForResponse(isTreeQuery, { timeout });
  await page.click('.graphiql-execute-button');
  const resp = await responded;
  if (resp.status() !== 200) throw new Error(what + ': the tree query answered HTTP ' + resp.status());
  const body = await resp.json();
  const sessions = body?.data?.sessions?.nodes || [];
  if (body.errors || sessions.length === 0 || !sessions.some((s) => (s.goals || []).length > 0)) {
    throw new Error(what + ': unexpected tree: ' + JSON.stringify(body).slice(0, 500));
  }
  await page.waitForFunction(() => {
    const el = document.querySelector('.graphiql-response');
    return el && el.textContent.includes('"totalCount"') && el.textContent.includes('"goals"');
  }, null, { timeout });
  console.log(what + ': the session tree query returned ' + sessions.length + ' sessions, ' +
    sessions.reduce((n, s) => n + s.goals.length, 0) + ' root objectives');
}

// readmeTree is the README's anonymous session tree query.
const readmeTree = '{ sessions(first: 5) { nodes { title goals(roots: true) { name attainment children { name metrics ' +
  '{ name attainment checkins { actual } } owners { ... on User { name } ... on Team { name } } } } } } }';

// runPasted replaces the editor's text with the README's anonymous tree
// query, as a person pasting it does, runs it, and checks that the request
// named no operation (GraphiQL remembers the example's SessionTree) and
// that the tree came back.
async function runPasted(page, what) {
  await page.locator('.graphiql-query-editor .CodeMirror').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(readmeTree);
  const responded = page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' &&
    (r.request().postData() || '').includes('sessions(first: 5)'), { timeout });
  await page.click('.graphiql-execute-button');
  const resp = await responded;
  const sent = JSON.parse(resp.request().postData());
  if (sent.operationName) throw new Error(what + ': the pasted anonymous query was sent with operationName ' + JSON.stringify(sent.operationName));
  const body = await resp.json();
  const sessions = body?.data?.sessions?.nodes || [];
  if (resp.status() !== 200 || body.errors || !sessions.some((s) => (s.goals || []).length > 0)) {
    throw new Error(what + ': pasted query: HTTP ' + resp.status() + ' ' + JSON.stringify(body).slice(0, 500));
  }
  await page.waitForFunction(() => {
    const el = document.querySelector('.graphiql-response');
    return el && el.textContent.includes('"attainment"') && !el.textContent.includes('not found');
  }, null, { timeout });
  console.log(what + ': the pasted anonymous tree query ran (no operation name sent), ' + sessions.length + ' sessions');
}

// checkReference follows the playground's link to the REST reference and
// checks what Redoc rendered of the served OpenAPI document.
async function checkReference(page, base) {
  const doc = await (await fetch(base + '/api/openapi.json')).json();
  const summaries = Object.values(doc.paths).flatMap((item) => Object.values(item)).map((op) => op.summary).filter(Boolean);
  const violations = [];
  await page.exposeFunction('okrgateViolation', (v) => violations.push(v));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => window.okrgateViolation(e.violatedDirective + ' ' + e.blockedURI)));
  await page.click('#okrgate-reference');
  await page.waitForURL(base + '/reference', { timeout });
  // 106 paths: Redoc takes a while on a loaded machine.
  await page.waitForFunction((titles) => [...document.querySelectorAll('h2')].some((h) => titles.includes(h.textContent.trim())),
    summaries, { timeout: 4 * timeout });
  const text = await page.evaluate(() => document.body.innerText);
  const titles = await page.$$eval('h2', (hs) => hs.map((h) => h.textContent.trim()));
  const rendered = summaries.filter((s) => titles.includes(s));
  if (rendered.length < summaries.length / 2) throw new Error('reference: ' + rendered.length + ' of ' + summaries.length + ' operation titles rendered');
  if (!text.includes('Authorization: Bearer <token>')) throw new Error('reference: the bearer scheme is not shown as "Bearer <token>"');
  const bad = text.match(/.{0,60}(Bearer \.|shared\/).{0,60}/);
  if (bad) throw new Error('reference shows: ' + bad[0]);
  const unexpected = violations.filter((v) => !v.startsWith('img-src '));
  if (unexpected.length) throw new Error('reference: blocked by its policy: ' + unexpected.join(', '));
  await page.screenshot({ path: join(out, 'reference.png') });
  console.log('reference: Redoc rendered ' + rendered.length + ' of ' + summaries.length + ' operation titles (' +
    JSON.stringify(rendered[0]) + ', ...), "Bearer <token>", no shared/ path; the policy kept ' + violations.length +
    ' request(s) from leaving: ' + violations.join(', '));
}

// startApp serves a browser app on an origin of its own (127.0.0.1 on
// another port): a page and the graphql-ws client's browser bundle.
function startApp() {
  const bundle = readFileSync(join(process.env.GRAPHQL_WS, 'umd', 'graphql-ws.min.js'));
  const app = createServer((req, res) => {
    if (req.url === '/graphql-ws.min.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return res.end(bundle);
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!DOCTYPE html><title>app</title><script src="/graphql-ws.min.js"></script>');
  });
  return new Promise((resolve) => app.listen(0, '127.0.0.1', () =>
    resolve({ app, origin: 'http://127.0.0.1:' + app.address().port })));
}

// crossOrigin runs in the app's page: a query by fetch, then a
// checkInCreated subscription over graphql-ws (after: 0, so that the
// check-in is delivered whenever the subscription starts), then a check-in
// by a mutation; it resolves with what happened at each step.
async function crossOrigin({ base, token }) {
  const out = {};
  const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token };
  const post = (query, variables) => fetch(base + '/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) })
    .then((r) => r.json());
  try {
    const tree = await post('{ sessions { nodes { status goals { metrics { id } } } } }');
    out.metric = tree.data.sessions.nodes.filter((s) => s.status === 'open')
      .flatMap((s) => s.goals).flatMap((g) => g.metrics)[0]?.id;
  } catch (e) {
    out.query = String(e);
  }
  const client = graphqlWs.createClient({
    url: base.replace(/^http/, 'ws') + '/graphql', retryAttempts: 0, lazy: false,
    connectionParams: { Authorization: 'Bearer ' + token },
    on: { connected: () => { out.connected = true; } },
  });
  const seen = [];
  let made, found;
  const received = new Promise((resolve) => {
    found = resolve;
    client.subscribe({ query: 'subscription { checkInCreated(after: 0) { id actual } }' }, {
      next: (r) => {
        if (r.errors) out.errors = r.errors;
        seen.push(r.data?.checkInCreated?.id);
        if (made && seen.includes(made)) resolve(true);
      },
      // A refused handshake: the socket's error event (then close 1006).
      error: (e) => { out.subscription = e?.code ?? e?.type ?? String(e); resolve(false); },
      complete: () => resolve(false),
    });
  });
  setTimeout(() => { out.timedOut = true; found(false); }, 20000); // bounded: the test fails, never hangs
  if (out.metric) {
    const r = await post('mutation($m: ID!) { checkIn(metricId: $m, input: { actual: 77 }) { checkIn { id } } }', { m: out.metric });
    made = r.data?.checkIn?.checkIn?.id;
    if (!made) out.mutation = r;
    if (seen.includes(made)) found(true);
  }
  out.received = await received;
  out.checkIn = made;
  out.seen = seen.length;
  client.dispose();
  return out;
}

const blocked = [];
const errors = [];
let failed = false;
let server, context;
const apps = [];
try {
  // 1. A demo server: the token is prefilled.
  let started = await startServer(['--demo']);
  server = started.server;
  const { base, token } = started;
  context = await openBrowser('profile-demo', base, blocked);
  let page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  let schema = page.waitForResponse(isIntrospection, { timeout });
  await page.goto(base + '/', { waitUntil: 'load' });
  await expectIntrospection(await schema, token, 'demo');
  await page.waitForSelector('.graphiql-execute-button', { timeout });
  const editor = await page.textContent('.graphiql-query-editor');
  if (!editor.includes('query SessionTree')) throw new Error('demo: the editor does not open on the example: ' + editor.slice(0, 200));
  await expectDocs(page, 'demo');
  await runExample(page, 'demo');
  await runPasted(page, 'demo');
  await page.screenshot({ path: join(out, 'playground-demo.png') });
  await checkReference(page, base);
  await context.close();
  context = undefined;
  await stopServer(server);

  // 2. The same data, no --demo: the user brings the token.
  started = await startServer([]);
  server = started.server;
  const base2 = started.base;
  context = await openBrowser('profile-user', base2, blocked);
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  schema = page.waitForResponse(isIntrospection, { timeout });
  await page.goto(base2 + '/', { waitUntil: 'load' });
  const first = await schema;
  if (first.status() !== 401) throw new Error('first visit: introspection without a token answered HTTP ' + first.status());
  await page.waitForSelector('#okrgate-auth', { state: 'visible', timeout });
  const help = await page.textContent('#okrgate-auth');
  if (!help.includes('Authorization') || !help.includes('okrgate token create')) throw new Error('first visit: no authentication help: ' + help);
  await page.waitForSelector('.graphiql-execute-button', { timeout });
  await page.screenshot({ path: join(out, 'playground-first-visit.png') });
  console.log('first visit: the page explains how to authenticate');

  // Type the token in the Headers tab (open on a first visit).
  const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').first();
  await headers.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('{"Authorization": "Bearer ' + token + '"}');
  await page.waitForSelector('#okrgate-auth', { state: 'hidden', timeout });
  schema = page.waitForResponse(isIntrospection, { timeout });
  await page.click('[aria-label="Re-fetch GraphQL schema"]');
  await expectIntrospection(await schema, token, 'token typed');
  await expectDocs(page, 'token typed');
  await runExample(page, 'token typed');

  // Reload: the saved headers are used for the schema fetch.
  schema = page.waitForResponse(isIntrospection, { timeout });
  await page.reload({ waitUntil: 'load' });
  await expectIntrospection(await schema, token, 'after reload');
  await page.waitForSelector('.graphiql-execute-button', { timeout });
  await expectDocs(page, 'after reload');
  await runExample(page, 'after reload');
  await page.screenshot({ path: join(out, 'playground-after-reload.png') });

  // Reload again: the headers are kept, not only once (GraphiQL's own copy
  // is emptied on every load).
  schema = page.waitForResponse(isIntrospection, { timeout });
  await page.reload({ waitUntil: 'load' });
  await expectIntrospection(await schema, token, 'second reload');
  await page.waitForFunction((t) => [...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')]
    .some((el) => el.CodeMirror && el.CodeMirror.getValue().includes(t)), token, { timeout });
  console.log('second reload: the Headers tab still holds the token');

  await context.close();
  context = undefined;
  await stopServer(server);

  // 3. A browser app on another origin.
  const allowed = await startApp(), other = await startApp();
  apps.push(allowed.app, other.app);
  started = await startServer(['--cors-origins', allowed.origin]);
  server = started.server;
  context = await openBrowser('profile-app', started.base, blocked, [allowed.origin, other.origin]);
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(allowed.origin + '/', { waitUntil: 'load' });
  const ok = await page.evaluate(crossOrigin, { base: started.base, token });
  if (!ok.metric || !ok.connected || !ok.checkIn || !ok.received) throw new Error('allowed origin ' + allowed.origin + ': ' + JSON.stringify(ok));
  console.log('allowed origin: queried, subscribed over graphql-ws and received check-in ' + ok.checkIn);
  await page.goto(other.origin + '/', { waitUntil: 'load' });
  const refused = await page.evaluate(crossOrigin, { base: started.base, token });
  if (refused.metric || refused.connected || refused.received || ![1006, 'error'].includes(refused.subscription) ||
    !/TypeError|Failed to fetch/.test(refused.query || '')) {
    throw new Error('unlisted origin ' + other.origin + ' was served: ' + JSON.stringify(refused));
  }
  console.log('unlisted origin: the query is unreadable (' + refused.query + ') and the websocket handshake refused (' + refused.subscription + ')');

  if (blocked.length) throw new Error('the playground tried to reach the internet: ' + blocked.join(', '));
  if (errors.length) throw new Error('page errors: ' + errors.join('; '));
  console.log('playground OK (no request left 127.0.0.1); screenshots in ' + out);
} catch (e) {
  failed = true;
  console.error('browser test FAILED:', e);
  if (blocked.length) console.error('blocked requests:', blocked.join(', '));
} finally {
  if (context) await context.close().catch(() => {});
  if (server) await stopServer(server);
  for (const app of apps) app.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
