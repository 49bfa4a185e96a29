#!/usr/bin/env node
/**
 * One worker of the shared-token tests (test/store/store-redis.test.ts): a provider on the Redis store
 * `STORE_URL` for the mock MCP server `MCP_URL`, asked once for its headers (the stored token is
 * expired, so it refreshes — or takes another worker's refresh). Prints `refreshing` when it
 * sends a refresh grant, then `token <access token>` and exits.
 */
import { createOAuthProvider } from '../../dist/index.js';
import { RedisTokenStore, parseStoreSetting } from '../../dist/host-api.js';

const store = new RedisTokenStore(parseStoreSetting(process.env.STORE_URL), { leaseMs: Number(process.env.LEASE_MS ?? 15000) });
const tellingFetch = (input, init) => {
  if (typeof init?.body === 'string' ? init.body.includes('grant_type=refresh_token') : String(init?.body ?? '').includes('grant_type=refresh_token')) process.stdout.write('refreshing\n');
  return fetch(input, init);
};
const provider = createOAuthProvider({
  serverUrl: process.env.MCP_URL,
  serverKey: 'mock',
  store,
  fetch: tellingFetch,
  redirectUri: 'http://127.0.0.1:9/callback',
  interaction: () => Promise.reject(new Error('no interaction in a worker')),
});
const h = await provider.headers();
process.stdout.write(`token ${(h.authorization ?? h.Authorization ?? '').replace(/^\w+ /, '')}\n`);
await store.close();
