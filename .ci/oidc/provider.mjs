// A real OpenID Provider (the npm package oidc-provider, OpenID Certified)
// on 127.0.0.1, for the sign-in tests of upstream/infra/authn. It issues JWT
// access tokens with the client_credentials grant: each client stands for
// one user (its email claim, verified), and the resource indicator
// chooses the audience. A client's claims object adds claims to its
// tokens or replaces any of theirs — sub, email_verified, iat, exp — for
// the tests of tokens a provider may issue (an account claim as an array,
// an unverified e-mail) or a broken one would (iat in the future, exp a
// string). POST /rotate replaces the signing key by a new one (the old
// one leaves the JWKS), as an issuer rotating its keys does. GET /stats
// says how many times the JWKS was fetched.
//
//   node provider.mjs '{"clients":[{"id":"app","secret":"s","email":"a@b.test","scope":"okrgate:read okrgate:write","ttl":600,"claims":{"acct":"..."}}]}'
//
// Prints "issuer http://127.0.0.1:PORT" once it listens.
import http from 'node:http';
import crypto from 'node:crypto';
import Provider from 'oidc-provider';

const spec = JSON.parse(process.argv[2] || '{"clients":[]}');
const byId = new Map(spec.clients.map((c) => [c.id, c]));

function newKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), alg: 'RS256', use: 'sig' };
}

function newProvider(issuer, key) {
  const provider = new Provider(issuer, {
    clients: spec.clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: c.scope,
    })),
    scopes: ['openid', 'okrgate:read', 'okrgate:write', 'other'],
    jwks: { keys: [key] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) => oneOf || 'https://okrgate.test',
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => ({
          scope: byId.get(client.clientId)?.scope || '',
          audience: resource,
          accessTokenTTL: byId.get(client.clientId)?.ttl || 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (ctx, token) => {
      const c = byId.get(token.clientId);
      return c ? { email: c.email, email_verified: true, groups: c.groups || [] } : undefined;
    },
    formats: {
      customizers: {
        jwt: (ctx, token, jwt) => {
          Object.assign(jwt.payload, byId.get(token.clientId)?.claims || {});
        },
      },
    },
  });
  return provider.callback();
}

let handle;
let jwksFetches = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/rotate') {
    handle = newProvider(issuer, newKey());
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jwks: jwksFetches }));
    return;
  }
  if (req.url.startsWith('/jwks')) jwksFetches++;
  handle(req, res);
});
let issuer;
server.listen(0, '127.0.0.1', () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  handle = newProvider(issuer, newKey());
  console.log(`issuer ${issuer}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
