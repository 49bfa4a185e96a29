// clauses: 2026-07-28
/**
 * `mcpwire snapshot` of a server of either era: a 2026-07-28-only server (which refuses
 * `initialize` with -32022) is read statelessly — `server/discover`, then each declared list with
 * its per-request `_meta` — over stdio and Streamable HTTP, with and without
 * `--protocol-version 2026-07-28`; a dual server is read in either era (its two engines offer
 * different tools, which `snapshot diff` reports beside the protocol version).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffSurfaces, takeSnapshot, type Surface } from '../../src/check/run/snapshot.js';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { runCliHere } from '../support/cli-in-process.js';
import { node, root } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('mcpwire-snapshot-eras-');
const STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const mocks: ModernHttpMock[] = [];
afterAll(async () => {
  await Promise.all(mocks.map((m) => m.close()));
});

function expectModernSurface(s: Surface): void {
  expect(s.protocolVersion).toBe('2026-07-28');
  expect(s.serverInfo.name).toEqual(expect.any(String));
  expect(Object.keys(s.capabilities)).toContain('tools');
  expect(s.tools.length).toBeGreaterThan(0);
  expect(s.prompts.map((p) => p.name)).toContain('greet');
}

describe('snapshot of a 2026-07-28-only server', () => {
  it('over stdio (the CLI), with and without --protocol-version 2026-07-28; snapshot diff of the two: no changes', { timeout: 60_000 }, async () => {
    const dir = tmp();
    const cmd = `${JSON.stringify(node)} ${JSON.stringify(STDIO)}`;
    const a = await runCliHere(['snapshot', '--stdio', cmd, '-o', path.join(dir, 'a.json')]);
    expect(a.code, a.stderr).toBe(0);
    const b = await runCliHere(['snapshot', '--stdio', cmd, '--protocol-version', '2026-07-28', '-o', path.join(dir, 'b.json')]);
    expect(b.code, b.stderr).toBe(0);
    expectModernSurface(JSON.parse(readFileSync(path.join(dir, 'a.json'), 'utf8')) as Surface);
    const d = await runCliHere(['snapshot', 'diff', path.join(dir, 'a.json'), path.join(dir, 'b.json')]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toBe('no changes\n');
  });

  it('over Streamable HTTP (stateless POSTs, no initialize)', { timeout: 30_000 }, async () => {
    const mock = await startModernHttpMock({});
    mocks.push(mock);
    const s = await takeSnapshot({ transport: 'http', id: 'modern', url: mock.url });
    expectModernSurface(s);
    expect(mock.record.requests.map((r) => r.method)).not.toContain('initialize');
    expect(mock.record.requests.map((r) => r.method)).toContain('tools/list');
  });

  it('a pinned handshake version it refuses is a clear error naming what it supports', { timeout: 30_000 }, async () => {
    const r = await runCliHere(['snapshot', '--stdio', `${JSON.stringify(node)} ${JSON.stringify(STDIO)}`, '--protocol-version', '2025-11-25']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/snapshot of .*refused protocol version 2025-11-25.*supports 2026-07-28/);
    expect(r.stderr).not.toContain('lifecycle.initialize-result');
  });
});

describe('snapshot of a dual server in both eras', () => {
  it('read at 2026-07-28 (chosen) and at 2025-11-25 (pinned); diff names the version change', { timeout: 60_000 }, async () => {
    const dual = { transport: 'stdio' as const, id: 'dual', command: node, args: [STDIO, 'dual'] };
    const modern = await takeSnapshot(dual);
    const handshake = await takeSnapshot(dual, { protocolVersion: '2025-11-25' });
    expect(modern.protocolVersion).toBe('2026-07-28');
    expect(handshake.protocolVersion).toBe('2025-11-25');
    const d = diffSurfaces(handshake, modern);
    expect(handshake.tools.map((t) => t.name)).toContain('echo');
    expect(modern.tools.map((t) => t.name)).toContain('echo');
    expect(d.other.map((c) => c.path)).toContain('protocolVersion');
  });
});
