// openapi-fetch with the account set once: the client's default headers
// carry the token and service-accountId (the accountHeader security scheme
// of /api/openapi.json), and 16 typed calls pass neither. Type-checked by
// tsc --noEmit (a required account header parameter would be an error at
// every call), then run against OKRGATE_URL with OKRGATE_TOKEN and
// OKRGATE_ACCOUNT: every call answers 200. Exits non-zero on any mismatch.
import createClient from 'openapi-fetch';
import assert from 'node:assert/strict';

import type { paths } from './generated/openapi.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
}

const api = createClient<paths>({
  baseUrl: env('OKRGATE_URL'),
  headers: { Authorization: `Bearer ${env('OKRGATE_TOKEN')}`, 'service-accountId': env('OKRGATE_ACCOUNT') },
});

async function main(): Promise<void> {
  const calls = await Promise.all([
    api.GET('/api/v2/integrations/goals'),
    api.GET('/api/v2/integrations/tasks'),
    api.GET('/api/v2/metrics'),
    api.GET('/api/v2/employees'),
    api.GET('/api/v2/roles'),
    api.GET('/api/v1/accounts/users'),
    api.GET('/api/v1/announcements'),
    api.GET('/api/v1/badges'),
    api.GET('/api/v1/badges/current'),
    api.GET('/api/v1/dashboards/reports'),
    api.GET('/api/v1/kpis'),
    api.GET('/api/v1/kpis/groups'),
    api.GET('/api/v1/lists'),
    api.GET('/api/v1/lists/supported-types'),
    api.GET('/api/v1/permissions/actions'),
    api.GET('/api/v1/permissions/effective'),
  ]);
  const failed = calls.filter((c) => c.response.status !== 200).map((c) => `${c.response.url}: HTTP ${c.response.status} ${JSON.stringify(c.error)}`);
  assert.deepEqual(failed, [], 'calls with the account set once failed');
  console.log(`openapi-fetch: ${calls.length} calls with the account set once, all 200`);
}

main().catch((e: unknown) => {
  console.error('account-once check FAILED:', e);
  process.exit(1);
});
