// Apollo Client consuming a deferred session tree from a running okrgate
// (OKRGATE_URL, OKRGATE_TOKEN): the query defers each root objective's
// subtree (key results, check-ins, children); Apollo Client, with its
// handler of the incremental delivery format okrgate writes
// (Defer20220824Handler), must first show the roots without the subtrees
// (dataState "streaming"), then the complete tree, equal to the answer to
// the same query without @defer. A raw fetch checks the multipart answer
// itself: its first part holds the sessions and their root objectives. Run
// by .ci/ts-client.sh; exits non-zero on any mismatch.
import assert from 'node:assert/strict';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';

const base = process.env.OKRGATE_URL;
const token = process.env.OKRGATE_TOKEN;
assert.ok(base && token, 'OKRGATE_URL and OKRGATE_TOKEN are required');

const tree = (defer) => `query DeferredTree {
  sessions(first: 3) {
    nodes {
      id
      title
      goals(roots: true) {
        id
        name
        ... ${defer ? '@defer(label: "subtree")' : ''} {
          attainment
          metrics { id name actual checkins { id actual } }
          children { id name metrics { id name } }
        }
      }
    }
  }
}`;

const client = () => new ApolloClient({
  link: new HttpLink({ uri: `${base}/graphql`, headers: { Authorization: `Bearer ${token}` } }),
  cache: new InMemoryCache(),
  incrementalHandler: new Defer20220824Handler(),
});

const within = (ms, what, p) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))]);

// The deferred query through Apollo Client: every result it emits.
const emitted = await within(20000, 'deferred query', new Promise((resolve, reject) => {
  const seen = [];
  const sub = client().watchQuery({ query: gql(tree(true)), fetchPolicy: 'network-only' }).subscribe({
    next: (r) => {
      if (r.error) {
        reject(r.error);
        return;
      }
      if (r.data) seen.push({ dataState: r.dataState, data: structuredClone(r.data) });
      if (r.dataState === 'complete' && !r.loading) {
        sub.unsubscribe();
        resolve(seen);
      }
    },
    error: reject,
  });
}));
const first = emitted.find((r) => r.dataState === 'streaming');
assert.ok(first, `Apollo Client showed no partial result before the complete tree: ${JSON.stringify(emitted.map((r) => r.dataState))}`);
const roots = first.data.sessions.nodes.flatMap((s) => s.goals);
assert.ok(roots.length > 0, 'no root objectives in the first result');
for (const g of roots) {
  assert.ok(g.id && g.name, `a root objective without its id or name: ${JSON.stringify(g)}`);
  assert.equal(g.children, undefined, `the deferred children arrived with the roots: ${JSON.stringify(g)}`);
}
const complete = emitted.at(-1).data;

// The same query without @defer: one answer, equal to the merged one.
const { data: plain } = await client().query({ query: gql(tree(false)), fetchPolicy: 'no-cache' });
assert.deepEqual(complete, plain, 'the deferred tree differs from the tree without @defer');
const goals = complete.sessions.nodes.flatMap((s) => s.goals);
const children = goals.reduce((n, g) => n + g.children.length, 0);
assert.ok(children > 0, 'no children in the deferred subtrees');

// The multipart answer itself: the first part holds the roots.
const res = await fetch(`${base}/graphql`, {
  method: 'POST',
  headers: {
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    Accept: 'multipart/mixed;deferSpec=20220824, application/json',
  },
  body: JSON.stringify({ query: tree(true) }),
});
const ct = res.headers.get('content-type') ?? '';
assert.match(ct, /^multipart\/mixed/, `Content-Type ${ct}`);
const boundary = /boundary="?([^";]+)"?/.exec(ct)?.[1];
assert.ok(boundary, `no boundary in ${ct}`);
const body = await res.text();
const parts = body.split(`--${boundary}`).map((p) => p.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim()).filter((p) => p.startsWith('{'));
assert.ok(parts.length >= 2, `${parts.length} parts`);
const head = JSON.parse(parts[0]);
assert.equal(head.hasNext, true);
assert.deepEqual(head.data.sessions.nodes.map((s) => s.goals.map((g) => g.id)),
  plain.sessions.nodes.map((s) => s.goals.map((g) => g.id)), 'the first part does not hold the roots');
assert.equal(JSON.parse(parts.at(-1)).hasNext, false);

console.log('apollo @defer:', JSON.stringify({
  results: emitted.map((r) => r.dataState), sessions: complete.sessions.nodes.length, roots: goals.length, children, parts: parts.length,
}));
