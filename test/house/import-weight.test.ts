/**
 * What `import('mcpwire')` loads, pinned: every file src/index.ts reaches through static value
 * imports (a lazy `import()` is not followed, `import type` is erased). The build puts these
 * modules in one chunk (scripts/postbuild.mjs; test/house/build-bundle.test.ts: the root reads at most
 * three files), so each costs the compile of its code in every program using mcpwire (target:
 * 40 ms, bench/import-time.mjs; docs/performance.md "Module load"): a feature loads where first
 * used. A file added to this list needs a reason; one that leaves it is a gain.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticGraph } from '../../scripts/static-graph.mjs';
import * as root from '../../src/index.js';
import * as traceApi from '../../src/trace-api.js';

const src = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '../src');

function staticFiles(entry: string): string[] {
  return staticGraph(entry, { sources: true }).files.map((f) => path.relative(src, f).split(path.sep).join('/')).sort();
}

/** The files of `import('mcpwire')` (59 with the stdio line writer; 66 before the stdio transport's spawn modules loaded on its first start, 87 before the trace readers, the OAuth provider and the request engine loaded on first use). */
const ROOT_FILES = [
  'auth/challenge.ts',
  'auth/deferred.ts',
  'auth/discovery.ts',
  'auth/errors.ts',
  'auth/http.ts',
  'auth/id-jag.ts',
  'auth/index.ts',
  'auth/memory-store.ts',
  'errors.ts',
  'index.ts',
  'jsonrpc/framer.ts',
  'jsonrpc/head.ts',
  'jsonrpc/types.ts',
  'mcp/capabilities.ts',
  'mcp/client-core.ts',
  'mcp/client-features.ts',
  'mcp/client-trace.ts',
  'mcp/client.ts',
  'mcp/elicitation.ts',
  'mcp/eras/handshake.ts',
  'mcp/eras/http-modern.ts',
  'mcp/eras/modern-errors.ts',
  'mcp/eras/modern.ts',
  'mcp/eras/select.ts',
  'mcp/icons.ts',
  'mcp/keepalive.ts',
  'mcp/lifecycle.ts',
  'mcp/mrtr.ts',
  'mcp/output-schema.ts',
  'mcp/pagination.ts',
  'mcp/result-cache.ts',
  'mcp/result-shapes.ts',
  'mcp/roots.ts',
  'mcp/sampling.ts',
  'mcp/session.ts',
  'mcp/structured.ts',
  'mcp/subscriptions.ts',
  'mcp/task-deadline.ts',
  'mcp/task-receiver-options.ts',
  'mcp/tasks.ts',
  'mcp/telemetry.ts',
  'mcp/tool-calls.ts',
  'mcp/tool-catalog.ts',
  'mcp/types.ts',
  'mcp/versions.ts',
  'protocol/error-text.ts',
  'protocol/options.ts',
  'trace/configured-secrets.ts',
  'trace/record.ts',
  'trace/secret-forms.ts',
  'trace/session-tag.ts',
  'trace/target.ts',
  'transport/create.ts',
  'transport/line-writer.ts', // the coalescing writer of stdio.ts's sends (shared with the gateway's stdout)
  'transport/memory.ts',
  'transport/stdio.ts',
  'util/abort.ts',
  'util/cancel.ts', // a peer's request's cancel handle (protocol/incoming.ts), watched by the request registry
  'util/serial.ts',
  'util/sleep.ts',
];

describe("import('mcpwire') loads what a program needs before its first connect, and no more", () => {
  it('the files src/index.ts reaches statically are the pinned list (load a new feature where first used)', () => {
    expect(staticFiles(path.join(src, 'index.ts'))).toEqual(ROOT_FILES);
  });

  it("the request engine, the task receiver, the OAuth provider, the trace readers and the stdio transport's spawn modules load on first use", () => {
    const files = new Set(staticFiles(path.join(src, 'index.ts')));
    const lazy = [
      'protocol/connection.ts',
      'mcp/client-connection.ts',
      'mcp/task-receiver.ts',
      'mcp/eras/http-headers.ts',
      'auth/provider.ts',
      'trace/index.ts',
      'trace/read.ts',
      'trace/show.ts',
      'trace/stats.ts',
      'trace/html.ts',
      'trace/redact.ts',
      'trace/tracer.ts',
      'transport/stdio-runtime.ts',
      'transport/env.ts',
      'transport/exit-hooks.ts',
      'transport/spawn/kill.ts',
      'transport/spawn/system.ts',
      'transport/spawn/not-found.ts',
      'transport/stderr-ring.ts',
    ];
    expect(lazy.filter((f) => files.has(f))).toEqual([]);
  });

  it("mcpwire/trace holds the trace readers, renderers and the redactor; the root keeps the tracer's entry points", () => {
    const moved = ['parseTrace', 'readTrace', 'pairExchanges', 'renderShow', 'computeStats', 'formatStats', 'renderHtml', 'Redactor', 'redact', 'REDACTED'];
    expect(moved.filter((n) => !(n in traceApi))).toEqual([]);
    expect(moved.filter((n) => n in root)).toEqual([]);
    for (const n of ['createTracer', 'traceTarget', 'loadStrict', 'TRACE_FORMAT_VERSION', 'loadTap'] as const) expect(n in root, n).toBe(true);
    expect(root.TRACE_FORMAT_VERSION).toBe(traceApi.TRACE_FORMAT_VERSION);
  });
});

describe('zod loads where a config entry or a host tool\'s arguments are first checked', () => {
  it("mcpwire/host reaches no zod statically (its schemas are built on first use: src/host/config/zod.ts); the public serverEntrySchema still validates", async () => {
    expect(staticGraph(path.join(src, 'host-api.ts'), { sources: true }).packages).not.toContain('zod');
    const { serverEntrySchema } = await import('../../src/host-api.js');
    expect(serverEntrySchema.safeParse({ transport: 'stdio', command: 'node' }).success).toBe(true);
    expect(serverEntrySchema.safeParse({ transport: 'ftp' }).success).toBe(false);
    expect(Object.keys(serverEntrySchema.shape)).toContain('sandbox');
  });
});

describe("the root's createOAuthProvider (auth/deferred.ts): the provider's module loads on first use, nothing else changes", () => {
  const base = { serverUrl: 'http://127.0.0.1:1/mcp', clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb' };

  it('an invalid serverUrl throws at creation', () => {
    expect(() => root.createOAuthProvider({ ...base, serverUrl: 'not a url' })).toThrow(TypeError);
  });

  it('the client secret is reported to onSecret at creation and listed at once, and not reported again when the provider loads', async () => {
    const reported: string[][] = [];
    const provider = root.createOAuthProvider({ ...base, clientSecret: 'a-client-secret-value', onSecret: (v) => reported.push(v) });
    expect(reported).toEqual([['a-client-secret-value']]);
    expect(provider.secrets()).toEqual(['a-client-secret-value']);
    const status = await provider.status(); // loads provider.ts
    expect(status.authorized).toBe(false);
    expect(reported).toEqual([['a-client-secret-value']]);
    expect(provider.secrets()).toEqual(['a-client-secret-value']);
  });

  it('a secrets listener registered before the load hears what the provider learns after it; its remover works', async () => {
    const heard: string[][] = [];
    const store = new root.MemoryTokenStore();
    const provider = root.createOAuthProvider({ ...base, store });
    const off = provider.onSecrets((v) => heard.push(v));
    await store.set('http://127.0.0.1:1/mcp', { access_token: 'an-access-token-value', token_type: 'Bearer' });
    expect(await provider.headers()).toEqual({ authorization: 'Bearer an-access-token-value' });
    expect(heard.flat()).toContain('an-access-token-value');
    off();
    expect(provider.secrets()).toContain('an-access-token-value');
  });
});
