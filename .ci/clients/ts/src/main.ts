// Real clients against a running okrgate (OKRGATE_URL, OKRGATE_TOKEN,
// OKRGATE_ACCOUNT): Apollo Client runs the nested session tree query with
// the types graphql-codegen generated from the live schema, and openapi-fetch
// checks in a key result with the types openapi-typescript generated from
// /api/openapi.json. Exits non-zero on any mismatch.
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import createClient from 'openapi-fetch';
import assert from 'node:assert/strict';

import { SessionTreeDocument, type SessionTreeQuery } from './generated/graphql.js';
import type { paths } from './generated/openapi.js';
import './noany.js';
import './required.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
}

const base = env('OKRGATE_URL');
const token = env('OKRGATE_TOKEN');
const account = env('OKRGATE_ACCOUNT');

type Session = SessionTreeQuery['sessions']['nodes'][number];
type Goal = Session['goals'][number];
// A key result of a root objective or of a child: the query selects the same fields.
type Metric = Goal['metrics'][number] | Goal['children'][number]['metrics'][number];

async function sessionTree(): Promise<SessionTreeQuery> {
  const client = new ApolloClient({
    link: new HttpLink({ uri: `${base}/graphql`, headers: { Authorization: `Bearer ${token}` } }),
    cache: new InMemoryCache({ possibleTypes: { Owner: ['User', 'Team'] } }),
  });
  const { data } = await client.query({ query: SessionTreeDocument, fetchPolicy: 'network-only' });
  assert.ok(data, 'the session tree query returned no data');
  return data;
}

async function main(): Promise<void> {
  const tree = await sessionTree();
  const sessions: Session[] = tree.sessions.nodes;
  assert.ok(sessions.length > 0, 'no sessions');
  const goals: Goal[] = sessions.flatMap((s) => s.goals);
  assert.ok(goals.length > 0, 'no root objectives');
  const owners = goals.flatMap((g) => g.owners);
  for (const o of owners) {
    // The owner union narrows on __typename.
    const label: string = o.__typename === 'User' ? `${o.name} <${o.email}>` : `team ${o.name}`;
    assert.ok(label.length > 0);
  }
  const metricsOf = (g: Goal): Metric[] => [...g.metrics, ...g.children.flatMap((c) => c.metrics)];
  const metrics: Metric[] = goals.flatMap(metricsOf);
  // Check-ins need an open session (locked allows them too; closed does not).
  const metric = sessions.filter((s) => s.status === 'open').flatMap((s) => s.goals).flatMap(metricsOf)[0];
  assert.ok(metric, 'no key result in the tree of an open session');
  const levels = {
    sessions: sessions.length,
    goals: goals.length,
    children: goals.reduce((n, g) => n + g.children.length, 0),
    metrics: metrics.length,
    checkins: metrics.reduce((n, m) => n + m.checkins.length, 0),
    owners: owners.length,
  };
  console.log('apollo: session tree', JSON.stringify(levels));

  const api = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${token}`, 'service-accountId': account },
  });
  const actual = metric.actual + 1;
  const checkin = await api.POST('/api/v1/metrics/{id}/checkin', {
    params: { path: { id: metric.id } },
    body: { actual, comment: 'checked in by the TypeScript client check' },
  });
  assert.equal(checkin.response.status, 201, `check-in: HTTP ${checkin.response.status} ${JSON.stringify(checkin.error)}`);
  assert.ok(checkin.data, 'check-in returned no body');
  assert.equal(checkin.data.metricId, metric.id);
  assert.equal(checkin.data.actual, actual);
  const after = await api.GET('/api/v1/metrics/{id}', { params: { path: { id: metric.id } } });
  assert.equal(after.response.status, 200, `GET metric: HTTP ${after.response.status}`);
  assert.equal(after.data?.actual, actual, 'the key result does not show the check-in');
  const missing = await api.GET('/api/v1/metrics/{id}', { params: { path: { id: '000000000000000000000000' } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'not_found');
  console.log(`openapi-fetch: checked in ${metric.name}: actual ${metric.actual} → ${after.data?.actual}; a missing id is 404 not_found`);

  const tree2 = await sessionTree();
  const again = tree2.sessions.nodes.flatMap((s) => s.goals).flatMap(metricsOf).find((m) => m.id === metric.id);
  assert.equal(again?.actual, actual, 'GraphQL does not show the check-in');
  assert.equal(again?.checkins.length, metric.checkins.length + 1, 'GraphQL does not list the new check-in');
  console.log('apollo: the tree shows the new check-in');
}

main().catch((e: unknown) => {
  console.error('TypeScript client check FAILED:', e);
  process.exit(1);
});
