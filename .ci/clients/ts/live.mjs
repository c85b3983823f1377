// The graphql-ws client (the npm package, over the ws package) against a
// running okrgate (OKRGATE_URL, OKRGATE_TOKEN): a query over the socket
// finds a key result in an open session, a goalChanged subscription on
// that session receives the check-in made over REST, and the client
// completes the subscription and closes the socket cleanly. Run by
// .ci/ts-client.sh; exits non-zero on any mismatch.
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const base = process.env.OKRGATE_URL;
const token = process.env.OKRGATE_TOKEN;
assert.ok(base && token, 'OKRGATE_URL and OKRGATE_TOKEN are required');

let closed;
const client = createClient({
  url: base.replace(/^http/, 'ws') + '/graphql',
  webSocketImpl: WebSocket,
  connectionParams: { Authorization: `Bearer ${token}` },
  retryAttempts: 0,
  on: { closed: (e) => { closed = e; } },
});

const within = (ms, what, p) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))]);

// A query over the socket.
const tree = await within(10000, 'query', new Promise((resolve, reject) => {
  let result;
  client.subscribe(
    { query: '{ sessions { nodes { id status goals { id metrics { id actual } } } } }' },
    { next: (r) => { result = r; }, error: reject, complete: () => resolve(result) },
  );
}));
assert.ok(tree && !tree.errors, `query: ${JSON.stringify(tree)}`);
const session = tree.data.sessions.nodes.find((s) => s.status === 'open' && s.goals.some((g) => g.metrics.length > 0));
assert.ok(session, 'no key result in an open session');
const goal = session.goals.find((g) => g.metrics.length > 0);
const metric = goal.metrics[0];

// A subscription receives a check-in made over REST.
const updates = [];
let wake;
const stop = client.subscribe(
  { query: 'subscription($s: ID) { goalChanged(sessionId: $s) { id attainment } }', variables: { s: session.id } },
  {
    next: (r) => { updates.push(r); wake?.(); },
    error: (e) => { throw new Error(`subscription: ${JSON.stringify(e)}`); },
    complete: () => {},
  },
);
// The subscription starts from the head of the log: check in until the
// goal's update arrives (a check-in sent before the subscribe was read
// would not be delivered).
const deadline = Date.now() + 15000;
let got;
for (let i = 1; !got; i++) {
  assert.ok(Date.now() < deadline, `no goalChanged update of ${goal.id} within 15 s: ${JSON.stringify(updates)}`);
  const res = await fetch(`${base}/api/v1/metrics/${metric.id}/checkin`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ actual: metric.actual + i }),
  });
  assert.equal(res.status, 201, `check-in: HTTP ${res.status}`);
  await new Promise((resolve) => { wake = resolve; setTimeout(resolve, 1000); });
  got = updates.find((u) => u.data?.goalChanged?.id === goal.id);
}
assert.ok(!got.errors, `update with errors: ${JSON.stringify(got)}`);
assert.equal(typeof got.data.goalChanged.attainment, 'number');
assert.equal(typeof got.extensions?.position, 'number', 'an update names its log position');

stop();
await client.dispose();
await within(5000, 'close', new Promise((resolve) => { const t = setInterval(() => { if (closed) { clearInterval(t); resolve(); } }, 20); }));
assert.equal(closed.code, 1000, `closed with ${closed.code} ${closed.reason}`);
console.log(JSON.stringify({ graphqlWs: 'ok', updates: updates.length, position: got.extensions.position }));
