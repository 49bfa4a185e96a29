// clauses: 2026-07-28
/**
 * `mcpwire check` against correct 2026-07-28 servers — the modern mock (mock-servers/modern,
 * stdio and Streamable HTTP) and a server no one here wrote (@modelcontextprotocol/server 2.4.0,
 * mock-servers/interop/sdk-v2-server.mjs, modern-only and dual) — reports no failure: the era
 * is chosen as the client chooses it, the handshake-era checks are not applicable (never a
 * failure), and `--all-versions` checks each era a dual server speaks. A version the server
 * refuses is a report naming the versions it supports.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkExitCode, renderCheckReport, renderJUnit, runAllVersions, runChecks, type CheckReport } from '../../src/check-api.js';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { describeOutcome } from '../../src/check/core/probe.js';
import { spawnHttpPeer, type HttpPeer } from '../support/modern-wire.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const MODERN = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const SDK = path.join(root, 'mock-servers', 'interop', 'sdk-v2-server.mjs');
const FIXTURE = path.join(root, 'mock-servers', 'check-fixtures', 'server.mjs');
const OPTS = { timeoutMs: 15_000, allowCalls: true };
const T = { timeout: 120_000 };
// Each test checks its own server(s): the tests of a describe run at once, their waits overlapping.
const node = process.execPath;
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function sdkHttp(legacy?: 'reject'): Promise<string> {
  const peer: HttpPeer = await spawnHttpPeer([SDK, 'http', ...(legacy ? ['--legacy', legacy] : [])]);
  closers.push(peer.close);
  return peer.url;
}

/**
 * The SDK v2 peer over HTTP serves a foreign Origin (createMcpHandler run without allowed
 * origins): a real deviation the official suite reports too (dns-rebinding-protection), so
 * check fails it — src/check/crosscheck-2026-07-28.md.
 */
const SDK_HTTP_DEVIATIONS = ['modern.http-origin'];

/** No failure, warning or checker error but the `known` failures; every handshake-era check not applicable. */
function clean(r: CheckReport, known: string[] = []): void {
  expect(r.era).toBe('modern');
  expect(r.protocolVersion).toBe('2026-07-28');
  const bad = r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error');
  expect(bad.filter((x) => !(known.includes(x.id) && x.status === 'fail')).map((x) => `${x.id}: ${x.detail}`)).toEqual([]);
  expect(bad.map((x) => x.id)).toEqual(known);
  const passed = r.results.filter((x) => x.status === 'pass').map((x) => x.id);
  expect(passed).toEqual(expect.arrayContaining(['modern.discover', 'modern.unsupported-version', 'modern.meta-required', 'modern.cache-hints', 'modern.result-type']));
  for (const x of r.results.filter((y) => !y.id.startsWith('modern.'))) expect(x.detail, x.id).toMatch(/^not applicable: 2024-11-05 … 2025-11-25 only/);
}

describe.concurrent('correct 2026-07-28 servers pass every modern check', () => {
  it('the modern mock over stdio: no failure; lifecycle.before-initialize not applicable', T, async () => {
    const r = await runChecks({ transport: 'stdio', command: node, args: [MODERN] }, OPTS);
    clean(r);
    expect(r.results.find((x) => x.id === 'lifecycle.before-initialize')?.status).toBe('skip');
    expect(r.supportedVersions).toEqual(['2026-07-28']);
    expect(r.serverInfo?.name).toBe('mcpwire-modern-mock');
  });

  it('the modern mock over Streamable HTTP: no failure, the HTTP checks of both eras judged by era', T, async () => {
    // its own Origin allowed (known once the port is), any other refused with 403
    const allowedOrigins: string[] = [];
    const mock = await startModernHttpMock({ stderr: () => {}, allowedOrigins });
    allowedOrigins.push(new URL(mock.url).origin);
    closers.push(() => mock.close());
    const r = await runChecks({ transport: 'http', url: mock.url }, OPTS);
    clean(r);
    expect(r.results.find((x) => x.id === 'modern.http-stateless')?.status).toBe('pass');
    expect(r.results.find((x) => x.id === 'modern.http-origin')?.status).toBe('pass');
    expect(r.results.find((x) => x.id === 'http.session-id')?.status).toBe('skip');
  });

  it('the SDK v2 server, modern-only, over stdio: no failure', T, async () => {
    clean(await runChecks({ transport: 'stdio', command: node, args: [SDK, 'stdio', '--legacy', 'reject'] }, OPTS));
  });

  it('the SDK v2 server, modern-only, over HTTP: no failure but its unvalidated Origin (it answers -32022 with 400; check speaks 2026-07-28 to it)', T, async () => {
    clean(await runChecks({ transport: 'http', url: await sdkHttp('reject') }, OPTS), SDK_HTTP_DEVIATIONS);
  });

  it('the SDK v2 server, dual, over stdio and HTTP: the modern era is checked first, with no failure but its unvalidated Origin over HTTP', T, async () => {
    clean(await runChecks({ transport: 'stdio', command: node, args: [SDK, 'stdio'] }, OPTS));
    clean(await runChecks({ transport: 'http', url: await sdkHttp() }, OPTS), SDK_HTTP_DEVIATIONS);
  });
});

describe.concurrent('--all-versions and --protocol-version', () => {
  it('--all-versions on a dual server checks both eras: 2026-07-28, then the version initialize answers', T, async () => {
    const reports = await runAllVersions({ transport: 'stdio', command: node, args: [SDK, 'stdio'] }, { ...OPTS, only: ['modern', 'lifecycle.initialize-result'] });
    expect(reports.map((r) => [r.era, r.protocolVersion])).toEqual([
      ['modern', '2026-07-28'],
      ['handshake', '2025-11-25'],
    ]);
    expect(reports[1]!.results.find((x) => x.id === 'lifecycle.initialize-result')?.status).toBe('pass');
    expect(reports[1]!.results.filter((x) => x.id.startsWith('modern.')).every((x) => x.status === 'skip' && /^not applicable: 2026-07-28 only/.test(x.detail ?? ''))).toBe(true);
    expect(reports.every((r) => r.refused === undefined)).toBe(true);
    // over Streamable HTTP: the raw initialize of a dual endpoint answers the handshake version
    const http = await runAllVersions({ transport: 'http', url: await sdkHttp() }, { ...OPTS, only: ['modern.discover', 'lifecycle.initialize-result'] });
    expect(http.map((r) => [r.era, r.protocolVersion, r.summary.fail])).toEqual([
      ['modern', '2026-07-28', 0],
      ['handshake', '2025-11-25', 0],
    ]);
  });

  it("--all-versions follows server/discover's list: the dual modern mock is checked at each version it claims", T, async () => {
    const env = { MOCK_SCENARIO_JSON: JSON.stringify({ extends: 'default', mode: 'dual', legacyVersions: ['2025-11-25', '2025-06-18'] }) };
    const reports = await runAllVersions({ transport: 'stdio', command: node, args: [MODERN], env }, { ...OPTS, only: ['modern.discover', 'lifecycle.initialize-result'] });
    expect(reports.map((r) => r.protocolVersion)).toEqual(['2026-07-28', '2025-11-25', '2025-06-18']);
    expect(reports[0]!.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18']);
    for (const r of reports) expect(r.summary.fail, renderCheckReport(r)).toBe(0);
  });

  // cites basic.versioning#1: check reports a server that breaks it
  it('a modern-only server asked for 2025-11-25 (--protocol-version): a report naming the versions it supports, exit 1, no check run (basic.versioning#1)', T, async () => {
    for (const target of [{ transport: 'stdio' as const, command: node, args: [MODERN] }, { transport: 'http' as const, url: await sdkHttp('reject') }]) {
      const r = await runChecks(target, { ...OPTS, protocolVersion: '2025-11-25' });
      expect(r.refused, target.transport).toMatchObject({ requested: '2025-11-25', supported: ['2026-07-28'] });
      expect(r.results).toEqual([]);
      expect(checkExitCode(r)).toBe(1);
      const text = renderCheckReport(r);
      expect(text).toContain('NOT CHECKED: initialize refused protocol version 2025-11-25');
      expect(text).toContain('the server supports: 2026-07-28');
      expect(text).not.toContain('sent no response');
      const xml = renderJUnit([{ name: 'modern', report: r }]);
      expect(xml).toContain('type="version-refused"');
      expect(xml).toMatch(/<testsuites[^>]* tests="1" failures="0" errors="1"/);
    }
  });

  it('unpinned: a server whose server/discover is -32601 but whose initialize is -32022 is a refusal naming its versions', T, async () => {
    const env = { MOCK_SCENARIO_JSON: JSON.stringify({ extends: 'default', behavior: { methods: { 'server/discover': { error: { code: -32601, message: 'Method not found' } } } } }) };
    const r = await runChecks({ transport: 'stdio', command: node, args: [MODERN], env }, OPTS);
    expect(r.era).toBe('handshake');
    expect(r.refused).toMatchObject({ requested: '2025-11-25', supported: ['2026-07-28'] });
    expect(renderCheckReport(r)).toContain('the server supports: 2026-07-28');
  });

  it('a version refusal keeps the versions the server supports in the detail of an outcome', () => {
    const text = describeOutcome({ kind: 'error', error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-11-25' } }, message: undefined });
    expect(text).toBe('error -32022 "Unsupported protocol version" (supported: 2026-07-28)');
  });

  it('a handshake-only server asked for 2026-07-28: not checked, server/discover was not answered the modern way', T, async () => {
    const r = await runChecks({ transport: 'stdio', command: node, args: [FIXTURE] }, { ...OPTS, protocolVersion: '2026-07-28' });
    expect(r.refused?.requested).toBe('2026-07-28');
    expect(r.refused?.detail).toMatch(/^server\/discover got .*: the server does not speak the 2026-07-28 era$/);
    expect(checkExitCode(r)).toBe(1);
  });

  it('the era and version are in every output: text, JSON, JUnit properties', T, async () => {
    const r = await runChecks({ transport: 'stdio', command: node, args: [MODERN] }, { ...OPTS, only: ['modern.discover'] });
    expect(renderCheckReport(r)).toContain('(protocol 2026-07-28)\nera: modern (stateless, per-request _meta); the server claims 2026-07-28');
    expect(JSON.parse(JSON.stringify(r))).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', supportedVersions: ['2026-07-28'] });
    const xml = renderJUnit([{ name: 'modern', report: r }]);
    expect(xml).toContain('<property name="era" value="modern"/>');
    expect(xml).toContain('<property name="protocolVersion" value="2026-07-28"/>');
  });
});
