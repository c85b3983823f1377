// Trusted documents, against a server started with
// `--trusted-documents src/graphql --trusted-documents-only
// --trusted-documents-escape none` (OKRGATE_TRUSTED_URL, OKRGATE_TOKEN):
// the operations this client ships (src/graphql/*.graphql, the same files
// graphql-codegen generated its types from) run, as Apollo Client prints
// them, through Apollo's automatic persisted queries link, and by id; a
// document the client did not ship is refused with DOCUMENT_NOT_TRUSTED.
// Exits non-zero on any mismatch.
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { SessionTreeDocument } from './generated/graphql.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
}

const uri = `${env('OKRGATE_TRUSTED_URL')}/graphql`;
const headers = { Authorization: `Bearer ${env('OKRGATE_TOKEN')}` };
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

// sent records the JSON bodies the client posted.
const sent: Array<Record<string, unknown>> = [];
const recordingFetch: typeof fetch = async (input, init) => {
  if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
  return fetch(input, init);
};

function client(apq: boolean): ApolloClient {
  const http = new HttpLink({ uri, headers, fetch: recordingFetch });
  return new ApolloClient({
    link: apq ? new PersistedQueryLink({ sha256 }).concat(http) : http,
    cache: new InMemoryCache({ possibleTypes: { Owner: ['User', 'Team'] } }),
  });
}

async function main(): Promise<void> {
  // A registered document, sent as Apollo Client prints it.
  const plain = await client(false).query({ query: SessionTreeDocument, fetchPolicy: 'network-only' });
  assert.ok(plain.data && plain.data.sessions.nodes.length > 0, 'the registered SessionTree returned no sessions');
  console.log('trusted: the registered SessionTree ran (' + plain.data.sessions.nodes.length + ' sessions)');

  // The same through automatic persisted queries: hash first, the text
  // once the server asks for it, the hash alone afterwards.
  const apq = client(true);
  sent.length = 0;
  for (let i = 0; i < 2; i++) {
    const r = await apq.query({ query: SessionTreeDocument, fetchPolicy: 'network-only' });
    assert.ok(r.data && r.data.sessions.nodes.length > 0, 'SessionTree through APQ returned no sessions');
  }
  assert.ok(sent.length >= 2 && sent[0]?.query === undefined, 'the APQ link did not send the hash alone first');
  assert.equal(sent[sent.length - 1]?.query, undefined, 'the second APQ query was sent with its text');
  console.log('trusted: SessionTree ran through automatic persisted queries (' + sent.length + ' requests for 2 queries)');

  // By id: the SHA-256 of the registered file, as a persisted-documents
  // manifest names it.
  const file = readFileSync(new URL('../src/graphql/sessionTree.graphql', import.meta.url), 'utf8');
  const byId = await fetch(uri, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ documentId: 'sha256:' + sha256(file) }),
  });
  const body = (await byId.json()) as { data?: { sessions?: { totalCount?: number } }; errors?: unknown };
  assert.equal(byId.status, 200);
  assert.ok(body.data?.sessions?.totalCount !== undefined && !body.errors, 'by documentId: ' + JSON.stringify(body).slice(0, 300));
  console.log('trusted: SessionTree ran by documentId');

  // A document this client did not ship.
  try {
    await client(false).query({ query: gql`query Unregistered { sessions(first: 1) { totalCount } }`, fetchPolicy: 'network-only' });
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
