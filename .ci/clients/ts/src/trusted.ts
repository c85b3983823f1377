// Trusted documents, against a server started with
// `--trusted-documents src/generated/client/persisted-documents.json
// --trusted-documents-only --trusted-documents-escape none`
// (OKRGATE_TRUSTED_URL, OKRGATE_TOKEN): the manifest graphql-codegen's
// client preset wrote (each document printed with its selections sorted,
// under the hash of that form). Apollo Client sends the documents as
// written: plainly, through its persisted query link with the manifest's
// hashes (the hash alone over HTTP; text and hash over a websocket, where
// a CheckInLive subscription receives a check-in recorded over REST), and
// by documentId; an unknown documentId is reported as unknown and a
// document the client did not ship is refused with DOCUMENT_NOT_TRUSTED.
// Exits non-zero on any mismatch.
import { ApolloClient, HttpLink, InMemoryCache, gql, type ApolloLink } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import type { DocumentNode } from 'graphql';
import { createClient } from 'graphql-ws';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

import { CheckInLiveDocument, SessionTreeDocument } from './generated/client/graphql.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
}

const base = env('OKRGATE_TRUSTED_URL');
const uri = `${base}/graphql`;
const token = env('OKRGATE_TOKEN');
const headers = { Authorization: `Bearer ${token}` };
const manifest = JSON.parse(readFileSync(new URL('../src/generated/client/persisted-documents.json', import.meta.url), 'utf8')) as Record<string, string>;

// manifestHash is the hash the client preset gave a document (__meta__).
const manifestHash = (doc: DocumentNode): string => {
  const hash = (doc as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (!hash || !(hash in manifest)) throw new Error('a document without a hash of the manifest');
  return hash;
};

// sent records the JSON bodies the client posted.
const sent: Array<Record<string, unknown>> = [];
const recordingFetch: typeof fetch = async (input, init) => {
  if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
  return fetch(input, init);
};

function client(link: ApolloLink): ApolloClient {
  return new ApolloClient({ link, cache: new InMemoryCache({ possibleTypes: { Owner: ['User', 'Team'] } }) });
}
const http = (): ApolloLink => new HttpLink({ uri, headers, fetch: recordingFetch });
const persisted = (): PersistedQueryLink => new PersistedQueryLink({ generateHash: manifestHash });

async function post(body: object): Promise<{ data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> }> {
  const res = await fetch(uri, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

async function main(): Promise<void> {
  // The registered document as written (the manifest holds it sorted).
  const plain = await client(http()).query({ query: SessionTreeDocument, fetchPolicy: 'network-only' });
  assert.ok(plain.data && plain.data.sessions.nodes.length > 0, 'the registered SessionTree returned no sessions');
  console.log('trusted: SessionTree as written ran against the sorted manifest (' + plain.data.sessions.nodes.length + ' sessions)');

  // Through the persisted query link with the manifest's hash: the hash
  // alone, never the text.
  sent.length = 0;
  const pq = client(persisted().concat(http()));
  for (let i = 0; i < 2; i++) {
    const r = await pq.query({ query: SessionTreeDocument, fetchPolicy: 'network-only' });
    assert.ok(r.data && r.data.sessions.nodes.length > 0, 'SessionTree by the manifest hash returned no sessions');
  }
  assert.ok(sent.length === 2 && sent.every((b) => b.query === undefined), 'the persisted query link sent text: ' + JSON.stringify(sent).slice(0, 300));
  console.log('trusted: SessionTree ran by the manifest hash (' + sent.length + ' requests, no text)');

  // By documentId, and an unknown one.
  const byId = await post({ documentId: manifestHash(SessionTreeDocument) });
  assert.ok(byId.data && !byId.errors, 'by documentId: ' + JSON.stringify(byId).slice(0, 300));
  const unknown = await post({ documentId: 'sha256:' + '0'.repeat(64) });
  assert.equal(unknown.errors?.[0]?.extensions?.code, 'UNKNOWN_DOCUMENT', JSON.stringify(unknown));
  assert.match(unknown.errors?.[0]?.message ?? '', /unknown document/);
  console.log('trusted: SessionTree ran by documentId; an unknown id: ' + String(unknown.errors?.[0]?.message));

  // A subscription over a websocket: Apollo sends the text as written and
  // the manifest's hash.
  const metric = plain.data.sessions.nodes.filter((s) => s.status === 'open')
    .flatMap((s) => s.goals).flatMap((g) => [...g.metrics, ...g.children.flatMap((c) => c.metrics)])[0];
  assert.ok(metric, 'no key result in an open session');
  let closed: { code: number; reason: string } | undefined;
  const ws = createClient({
    url: uri.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0,
    on: { closed: (e) => { closed = e as { code: number; reason: string }; } },
  });
  const live = client(persisted().concat(new GraphQLWsLink(ws)));
  const seen: string[] = [];
  let made = '';
  const received = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no check-in ${made} within 20 s; seen ${seen.length}; closed ${JSON.stringify(closed)}`)), 20000);
    live.subscribe({ query: CheckInLiveDocument, variables: { after: 0 } }).subscribe({
      next: (r) => {
        if (r.error) { clearTimeout(timer); reject(r.error); return; }
        if (r.data) seen.push(r.data.checkInCreated.id);
        if (made && seen.includes(made)) { clearTimeout(timer); resolve(); }
      },
      error: (e: unknown) => { clearTimeout(timer); reject(e instanceof Error ? e : new Error(String(e))); },
    });
  });
  const res = await fetch(`${base}/api/v1/metrics/${metric.id}/checkin`, {
    method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ actual: metric.actual + 1 }),
  });
  assert.equal(res.status, 201, `check-in: HTTP ${res.status}`);
  made = ((await res.json()) as { id: string }).id;
  if (seen.includes(made)) { /* already delivered */ } else await received;
  await ws.dispose();
  console.log('trusted: the CheckInLive subscription (Apollo over a websocket, manifest hash) received check-in ' + made);

  // A document this client did not ship.
  try {
    await client(http()).query({ query: gql`query Unregistered { sessions(first: 1) { totalCount } }`, fetchPolicy: 'network-only' });
    assert.fail('an unregistered document ran');
  } catch (e) {
    assert.ok(CombinedGraphQLErrors.is(e), 'unexpected error: ' + String(e));
    assert.equal(e.errors[0]?.extensions?.['code'], 'DOCUMENT_NOT_TRUSTED');
    console.log('trusted: an unregistered document was refused with ' + String(e.errors[0]?.extensions?.['code']));
  }
}

main().catch((e: unknown) => {
  console.error('trusted documents check FAILED:', e);
  process.exit(1);
});
