// Runs the GraphQL-over-HTTP audit suite of graphql-http (the spec's own
// conformance audits) against the built okrgate binary: starts
// `okrgate serve --demo` on a free loopback port with a fresh database,
// sends every audit request with the demo admin token, prints each audit's
// result and exits non-zero unless every audit passes (warnings included).
//
// Environment: OKRGATE_BIN (the binary to start); OKRGATE_DB (optional: the
// database to serve, e.g. a postgres:// URL of an empty schema; a fresh
// SQLite file by default).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditServer } from 'graphql-http';

const bin = process.env.OKRGATE_BIN;
if (!bin) throw new Error('OKRGATE_BIN is required');

const work = mkdtempSync(join(tmpdir(), 'okrgate-audit-'));
// The audits run at once, against the default flags: admission control
// queues a burst instead of refusing it, so they pass on a busy machine too.
// The access log is kept to errors.
const db = process.env.OKRGATE_DB || join(work, 'okr.db');
const server = spawn(bin, ['serve', '--demo', '--db', db, '--addr', '127.0.0.1:0',
  '--metrics-addr', '127.0.0.1:0', '--log-level', 'error'],
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

let failed = 0;
try {
  const { base, token } = await waitForServer();
  const results = await auditServer({
    url: base + '/graphql',
    fetchFn: (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', 'Bearer ' + token);
      return fetch(input, { ...init, headers });
    },
  });
  for (const r of results) {
    if (r.status === 'ok') {
      console.log('ok    ' + r.name);
      continue;
    }
    failed++;
    let detail = r.reason;
    try {
      const res = r.response;
      detail += ` (HTTP ${res.status} ${res.headers.get('content-type')}: ${(await res.text()).slice(0, 300)})`;
    } catch { /* body already read */ }
    console.log(`${r.status.padEnd(5)} ${r.name}: ${detail}`);
  }
  console.log(`${results.length - failed}/${results.length} audits pass`);
} finally {
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
