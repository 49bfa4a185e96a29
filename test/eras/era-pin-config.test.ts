/**
 * The era pin from a server's configuration (`protocol_version`): validated against the versions
 * mcpwire speaks, and honoured by the host (no probe; the pinned era in its status).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateServerEntry } from '../../src/host/config/schema.js';
import { createHost, type McpHost } from '../../src/host/index.js';
import { startAndSettle } from '../support/host-servers.js';
import { MODERN_SERVER } from '../support/recorded-mock.js';

const DUAL = [MODERN_SERVER, 'dual'];

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('protocol_version in a server entry', () => {
  it('is refused when it is not a version mcpwire speaks, naming the ones it does', () => {
    const bad = validateServerEntry({ transport: 'stdio', command: 'x', protocol_version: '1999-01-01' });
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toMatch(/protocol_version.*2026-07-28.*2025-11-25/);
    const good = validateServerEntry({ transport: 'stdio', command: 'x', protocol_version: '2026-07-28' });
    expect(good.ok && good.entry.config.protocolVersion).toBe('2026-07-28');
  });

  it('pins the era of a dual server: the handshake when it names a handshake-era version, modern otherwise', async () => {
    const entry = (v: string) => {
      const r = validateServerEntry({ transport: 'stdio', command: process.execPath, args: DUAL, protocol_version: v });
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      return { id: `v${v.replace(/-/g, '')}`, source: 'global' as const, file: '/u/c.json', enabled: true, transport: 'stdio' as const, config: r.entry.config };
    };
    host = createHost([entry('2025-06-18'), entry('2026-07-28')], { permission: 'allow' });
    await startAndSettle(host, 20_000);
    expect(host.status().map((s) => [s.id, s.era, s.protocolVersion])).toEqual([
      ['v20250618', 'handshake', '2025-06-18'],
      ['v20260728', 'modern', '2026-07-28'],
    ]);
  });
});
