// Runs okrgate as an Apollo Federation v2 subgraph behind a real gateway:
// starts `okrgate serve --demo --federation` on a free loopback port with a
// fresh database, reads its subgraph schema (_service { sdl }), composes it
// with a second, tiny subgraph ("picks", which only names goals and users
// by id) with two independent composers (@apollo/composition and
// @theguild/federation-composition), starts Apollo Gateway on loopback with
// the supergraph, and requires:
//
//   - both compositions succeed;
//   - the README's session tree query answers through the gateway exactly
//     what okrgate answers directly;
//   - picks { ... on Goal ... on User } through the gateway, which resolves
//     the goals and users with okrgate's _entities, answers what
//     nodes(ids:) answers directly, in one _entities request to okrgate
//     carrying both types.
//
// Exits non-zero on any failure. Environment: OKRGATE_BIN (the binary to
// start); OKRGATE_DB (optional: the database to serve; a fresh SQLite file
// by default).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { composeServices as apolloCompose } from '@apollo/composition';
import { composeServices as guildCompose } from '@theguild/federation-composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema } from '@apollo/subgraph';

const bin = process.env.OKRGATE_BIN;
if (!bin) throw new Error('OKRGATE_BIN is required');

const treeQuery = `{ sessions(first: 5) { nodes { title goals(roots: true) { name attainment children { name metrics { name attainment checkins { actual } } owners { ... on User { name } ... on Team { name } } } } } } }`;
const picked = `... on Goal { id name attainment metrics { name } owners { ... on User { name } ... on Team { name } } } ... on User { id name email }`;

const work = mkdtempSync(join(tmpdir(), 'okrgate-federation-'));
const db = process.env.OKRGATE_DB || join(work, 'okr.db');
const okrgate = spawn(bin, ['serve', '--demo', '--federation', '--db', db, '--addr', '127.0.0.1:0',
  '--metrics-addr', '127.0.0.1:0', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'inherit'] });
const stops = [];

function started() {
  return new Promise((resolve, reject) => {
    let out = '', base = '', token = '';
    const timer = setTimeout(() => reject(new Error('okrgate did not start: ' + out)), 30000);
    okrgate.stdout.on('data', (chunk) => {
      out += chunk;
      base ||= (out.match(/okrgate listening on (\S+)/) || [])[1] || '';
      token ||= (out.match(/demo admin token: (\S+)/) || [])[1] || '';
      if (base && token) { clearTimeout(timer); resolve({ base, token }); }
    });
    okrgate.on('exit', (code) => reject(new Error('okrgate exited ' + code + ': ' + out)));
  });
}

// post sends a GraphQL request and returns its JSON answer.
async function post(url, token, query, variables) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, `${url}: HTTP ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

// compose composes the subgraphs with one composer and fails on its errors.
function compose(name, composeServices, subgraphs) {
  const result = composeServices(subgraphs);
  if (result.errors && result.errors.length > 0) {
    throw new Error(`${name}: composition failed:\n` + result.errors.map((e) => e.message).join('\n'));
  }
  assert.ok(result.supergraphSdl, `${name}: no supergraph`);
  console.log(`ok    ${name} composes the supergraph`);
  return result.supergraphSdl;
}

try {
  const { base, token } = await started();
  const direct = base + '/graphql';
  const sdl = (await post(direct, token, '{ _service { sdl } }')).data._service.sdl;
  assert.match(sdl, /@key\(fields: "id"\)/);

  // The ids the picks subgraph hands out, read directly.
  const ids = (await post(direct, token, '{ goals(first: 3) { nodes { id } } users(first: 2) { nodes { id } } }')).data;
  const picks = [...ids.goals.nodes.map((g) => ({ id: g.id, type: 'Goal' })), ...ids.users.nodes.map((u) => ({ id: u.id, type: 'User' }))];
  assert.equal(picks.length, 5, 'the demo data has 3 goals and 2 users');

  const picksTypeDefs = parse(`
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
    type Goal @key(fields: "id", resolvable: false) { id: ID! }
    type User @key(fields: "id", resolvable: false) { id: ID! }
    union Pick = Goal | User
    type Query { picks: [Pick!]! }
  `);
  const picksServer = new ApolloServer({
    schema: buildSubgraphSchema({
      typeDefs: picksTypeDefs,
      resolvers: {
        Query: { picks: () => picks.map((p) => ({ id: p.id, __typename: p.type })) },
        Pick: { __resolveType: (p) => p.__typename },
      },
    }),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url: picksURL } = await startStandaloneServer(picksServer, { listen: { host: '127.0.0.1', port: 0 } });
  stops.push(() => picksServer.stop());

  const subgraphs = [
    { name: 'okrgate', typeDefs: parse(sdl), url: direct },
    { name: 'picks', typeDefs: picksTypeDefs, url: picksURL },
  ];
  const supergraphSdl = compose('@apollo/composition', apolloCompose, subgraphs);
  compose('@theguild/federation-composition', guildCompose, subgraphs);

  // The gateway passes the caller's Authorization on to okrgate and notes
  // every _entities request it sends there.
  const entityRequests = [];
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name, url }) => new RemoteGraphQLDataSource({
      url,
      willSendRequest({ request, context }) {
        if (context.authorization) request.http.headers.set('authorization', context.authorization);
        if (name === 'okrgate' && request.query.includes('_entities')) {
          entityRequests.push(request.variables.representations.map((r) => r.__typename));
        }
      },
    }),
  });
  const gatewayServer = new ApolloServer({ gateway });
  const { url: gatewayURL } = await startStandaloneServer(gatewayServer, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  });
  stops.push(() => gatewayServer.stop());

  const tree = await post(direct, token, treeQuery);
  assert.equal(tree.errors, undefined, JSON.stringify(tree.errors));
  assert.ok(tree.data.sessions.nodes.some((s) => s.goals.length > 0), 'the demo tree has goals');
  assert.deepEqual(await post(gatewayURL, token, treeQuery), tree);
  console.log('ok    the README tree query answers the same through the gateway as directly');

  const want = (await post(direct, token, `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ${picked} } }`,
    { ids: picks.map((p) => p.id) })).data.nodes;
  const got = await post(gatewayURL, token, `{ picks { __typename ${picked} } }`);
  assert.equal(got.errors, undefined, JSON.stringify(got.errors));
  assert.deepEqual(got.data.picks, want);
  assert.deepEqual(entityRequests, [picks.map((p) => p.type)], 'one _entities request to okrgate, both types in it');
  console.log('ok    3 goals and 2 users through the gateway (one _entities batch) equal nodes(ids:) directly');
} finally {
  for (const stop of stops) await stop();
  okrgate.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
