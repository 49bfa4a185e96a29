/**
 * The same host API whichever era a server speaks: one host reaching a handshake-only mock, a
 * modern-only mock, a dual one, and the real 2026-07-28 peers (the official SDK v2 modern-only
 * and dual, tmcp dual) over stdio — each at its newest version — gives the same `host.tools()`
 * and `callTool` outcomes; its status says the era. Then the client on each peer: a multi
 * round-trip elicitation, progress, a resource.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type McpClient, type StdioServerConfig } from '../../src/index.js';
import { createHost, type McpHost } from '../../src/host/index.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const script = (p: string) => path.join(root, 'mock-servers', p);

/** id → [args, era, protocol version] */
const SERVERS: Record<string, [string[], string, string]> = {
  legacy: [[script('stdio-server.mjs')], 'handshake', '2025-11-25'],
  modern: [[script('modern/stdio-server.mjs')], 'modern', '2026-07-28'],
  dual: [[script('modern/stdio-server.mjs'), 'dual'], 'modern', '2026-07-28'],
  sdkmodern: [[script('interop/sdk-v2-server.mjs'), 'stdio', '--legacy', 'reject'], 'modern', '2026-07-28'],
  sdkdual: [[script('interop/sdk-v2-server.mjs'), 'stdio'], 'modern', '2026-07-28'],
  tmcp: [[script('interop/tmcp-server.mjs'), 'stdio'], 'modern', '2026-07-28'],
};

describe('one host, every era', () => {
  let host: McpHost;
  beforeAll(async () => {
    host = createHost(
      Object.entries(SERVERS).map(([id, [args]]) => stdioServer(id, args, { requestTimeoutMs: 20_000 })),
      { permission: 'allow' },
    );
    await startAndSettle(host);
  }, 40_000);
  afterAll(async () => {
    await host?.close();
  });

  it('each server is ready at its newest version; status says the era', () => {
    for (const s of host.status()) {
      const [, era, version] = SERVERS[s.id]!;
      expect({ id: s.id, state: s.state, era: s.era, protocolVersion: s.protocolVersion }).toEqual({ id: s.id, state: 'ready', era, protocolVersion: version });
    }
  });

  it('host.tools() offers echo of every server; callTool answers the same whatever the era', async () => {
    for (const id of Object.keys(SERVERS)) {
      const echo = host.tools().find((t) => t.server === id && t.tool === 'echo');
      expect(echo, id).toBeDefined();
      const r = await host.callTool(echo!.name, { text: 'same' });
      expect({ id, content: r.content, isError: r.isError ?? false }).toEqual({ id, content: [{ type: 'text', text: 'same' }], isError: false });
    }
  });
});

describe('the client on the real 2026-07-28 peers over stdio', () => {
  const peers: Array<[string, string[]]> = [
    ['sdk v2 modern-only', SERVERS.sdkmodern![0]],
    ['sdk v2 dual', SERVERS.sdkdual![0]],
    ['tmcp dual', SERVERS.tmcp![0]],
  ];
  for (const [name, args] of peers) {
    it(`${name}: discovery, a multi round-trip elicitation, progress, a resource`, async () => {
      const config: StdioServerConfig = { transport: 'stdio', id: name.replace(/ /g, '-'), command: process.execPath, args };
      const asked: unknown[] = [];
      let c: McpClient | undefined;
      try {
        c = await connect(config, {
          timeoutMs: 20_000,
          onElicitation: async (p) => {
            asked.push(p);
            return { action: 'accept', content: { ok: true } };
          },
        });
        expect(c.era).toBe('modern');
        const confirmed = await c.callTool('confirm', { message: 'go?' });
        expect(asked).toHaveLength(1);
        expect(confirmed.isError ?? false).toBe(false);
        expect(JSON.stringify(confirmed.content)).toMatch(/accept/);
        const seen: number[] = [];
        await c.callTool('progress', { steps: 2 }, { onProgress: (p) => seen.push(p.progress) });
        expect(seen.length).toBeGreaterThanOrEqual(1);
        const read = await c.readResource('mem://readme');
        expect(read.contents.length).toBeGreaterThan(0);
      } finally {
        await c?.close();
      }
    }, 40_000);
  }
});
