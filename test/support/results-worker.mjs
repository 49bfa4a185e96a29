#!/usr/bin/env node
/**
 * One host process of the shared result cache tests (test/store-results.test.ts): a host on the
 * Redis store `STORE_URL` with one 2026-07-28 HTTP server `MCP_URL` (its requests carry
 * `Authorization: AUTH` when set). It starts (the host lists the tools), reads the resource
 * `READ_URI` when set through the host's resource tool, prints `tools <n>` and `read <text>`, and
 * exits.
 */
import { closeSharedStores, createHost } from '../../dist/host-api.js';

const headers = process.env.AUTH ? { Authorization: process.env.AUTH } : {};
const config = { url: process.env.MCP_URL, args: [], env: {}, headers, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] }, protocolVersion: '2026-07-28' };
const server = { id: 'modern', source: 'global', file: '/nonexistent/config.json', enabled: true, transport: 'http', config };
const host = createHost([server], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { storeSetting: process.env.STORE_URL } });
try {
  await host.start();
  const st = host.serverStatus('modern');
  if (st?.state !== 'ready') throw new Error(`not ready: ${JSON.stringify(st)}`);
  process.stdout.write(`tools ${host.tools().filter((t) => t.server === 'modern').length}\n`);
  if (process.env.READ_URI) {
    const r = await host.callTool('mcp_resource_read', { server: 'modern', uri: process.env.READ_URI });
    process.stdout.write(`read ${JSON.stringify(r.content)}\n`);
  }
} finally {
  await host.close();
  await closeSharedStores();
}
