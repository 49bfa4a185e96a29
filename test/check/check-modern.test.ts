// clauses: 2026-07-28
/**
 * `mcpwire check` against 2026-07-28 servers: each modern check fails (or warns) on the correct
 * modern mock with exactly one bug of its kind planted (mock-servers/check-modern/bugs.mjs, over
 * stdio and over a bug-planting HTTP proxy on 127.0.0.1), and none fails on the correct mock.
 * Servers no one here wrote are in test/check/check-modern-peers.test.ts. The bugs marked
 * `server: 'suite-mrtr'` are planted in the suite's MRTR fixtures instead, which the modern mock
 * does not list: test/check/check-suite-mrtr-answers.test.ts runs them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_CHECKS, runChecks, type CheckReport, type CheckResult } from '../../src/check-api.js';
import { BUGS, SCENARIO } from '../../mock-servers/check-modern/bugs.mjs';
import { startCheckModernHttp, type CheckModernHttp } from '../../mock-servers/check-modern/http-server.mjs';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const STDIO = path.join(root, 'mock-servers', 'check-modern', 'stdio-server.mjs');
const OPTS = { timeoutMs: 15_000, allowCalls: true };
const T = { timeout: 90_000 };
const servers: CheckModernHttp[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The report of `only` against the mock with `bug` planted, over `transport`. */
async function planted(bug: string | undefined, transport: 'stdio' | 'http', only: string[]): Promise<CheckReport> {
  if (transport === 'stdio') {
    return runChecks({ transport: 'stdio', command: process.execPath, args: [STDIO, ...(bug ? [`--bug=${bug}`] : [])] }, { ...OPTS, only });
  }
  const s = await startCheckModernHttp(bug ? { bug } : {});
  servers.push(s);
  return runChecks({ transport: 'http', url: s.url }, { ...OPTS, only });
}

const of = (r: CheckReport, id: string): CheckResult => {
  const x = r.results.find((y) => y.id === id);
  if (x === undefined) throw new Error(`no result for ${id}`);
  return x;
};

/** The bug makes its check fail (MUST) or warn (SHOULD) over every transport it applies to; the same run without it passes. */
async function catches(bug: string, also: string[] = [], clean: CheckResult['status'] = 'pass'): Promise<void> {
  const { check, transports } = BUGS[bug]!;
  const level = ALL_CHECKS.find((c) => c.id === check)!.level;
  for (const transport of transports ?? (['stdio', 'http'] as const)) {
    const bad = await planted(bug, transport, [check, ...also]);
    expect(bad.era, `${bug} over ${transport}`).toBe('modern');
    const r = of(bad, check);
    expect(r.status, `${bug} over ${transport}: ${r.detail}`).toBe(level === 'MUST' ? 'fail' : 'warn');
    expect(r.detail).toContain(`${r.clause} (`);
    const good = await planted(undefined, transport, [check, ...also]);
    expect(of(good, check).status, `${check} without the bug over ${transport}: ${of(good, check).detail}`).toBe(clean);
  }
}

// Each bug's runs spawn the mock (a process a request, over stdio) or start an HTTP proxy of
// their own and mostly wait on them: the bugs are checked at once.
describe.concurrent('each 2026-07-28 check catches its planted bug (stdio and HTTP)', () => {
  it('every modern check has a planted bug', () => {
    const broken = new Set(Object.values(BUGS).map((b) => b.check));
    expect(ALL_CHECKS.filter((c) => c.id.startsWith('modern.') && !broken.has(c.id)).map((c) => c.id)).toEqual([]);
    for (const c of ALL_CHECKS) expect(c.revisions?.length, c.id).toBeGreaterThan(0);
  });

  // cites server.discover#1: check reports a server that breaks it
  it('modern.discover: a DiscoverResult without supportedVersions (server.discover#1)', T, () => catches('discover-malformed'));
  // cites basic.versioning#1: check reports a server that breaks it
  it('modern.unsupported-version: a server that serves any version instead of -32022 (basic.versioning#1)', T, () => catches('any-version'));
  // cites basic.versioning#1: check reports a server that breaks it
  it('modern.unsupported-version: -32022 without data.requested, the version asked for (basic.versioning#1)', T, () => catches('unsupported-no-requested'));
  // cites basic.versioning#8: check reports a server that breaks it
  it('modern.initialize-refused: initialize refused without naming the supported versions (basic.versioning#8)', T, () => catches('initialize-unnamed'));
  // cites basic#45: check reports a server that breaks it
  it('modern.meta-required: a _meta without clientCapabilities served (basic#45)', T, () => catches('meta-lenient'));
  // cites server.prompts#2: check reports a server that breaks it
  it('modern.capabilities-declared: prompts served but not declared in server/discover (server.prompts#2)', T, async () => {
    await catches('prompts-undeclared');
    const r = of(await planted('prompts-undeclared', 'stdio', ['modern.capabilities-declared']), 'modern.capabilities-declared');
    expect(r.clause).toBe('server.prompts#2');
    expect(r.detail).toContain('"prompts" is not declared in server/discover but prompts/list was served');
  });
  // cites server.utilities.caching#1: check reports a server that breaks it
  it('modern.cache-hints: tools/list without ttlMs (server.utilities.caching#1)', T, () => catches('no-ttl'));
  // cites server.resources#12: check reports a server that breaks it
  it('modern.resource-not-found: an unknown resource as empty contents (server.resources#12)', T, () => catches('not-found-empty'));
  // cites basic.patterns.subscriptions#2: check reports a server that breaks it
  it('modern.subscriptions-listen: an acknowledgement naming another subscription (basic.patterns.subscriptions#2)', T, () => catches('listen-wrong-id'));
  // cites basic.versioning#4: check reports a server that breaks it
  it('modern.extensions: an extension identifier without a prefix (basic.versioning#4)', T, () => catches('extension-unprefixed'));
  // cites basic.versioning#5: check reports a server that breaks it
  it('modern.extensions: the tasks extension declared, tasks/get Method not found (basic.versioning#5)', T, () => catches('tasks-not-implemented'));
  // cites basic#49: check reports a server that breaks it
  it('modern.capabilities-per-request: capabilities remembered from an earlier request (basic#49)', T, () => catches('caps-sticky'));
  // cites basic.patterns.mrtr#9: check reports a server that breaks it
  it('modern.request-state-integrity: a tampered requestState honoured (basic.patterns.mrtr#9)', T, () => catches('state-unverified'));
  // cites basic.patterns.mrtr#25: check reports a server that breaks it
  it('modern.input-missing: a retry without input responses is an error (basic.patterns.mrtr#25)', T, () => catches('input-missing-error'));
  // cites basic.patterns.mrtr#24: check reports a server that breaks it
  it('modern.input-extra-ignored: an unexpected input response is an error (basic.patterns.mrtr#24)', T, () => catches('input-extra-error'));
  // cites basic.patterns.mrtr#22: check reports a server that breaks it
  it('modern.input-responses-validated: a number or null for the input responses completes the request (basic.patterns.mrtr#22)', T, () => catches('input-responses-unvalidated'));
  // cites basic#8: check reports a server that breaks it
  it('modern.result-type: tools/list results without resultType (basic#8)', T, () => catches('no-result-type', ['modern.cache-hints']));
  // cites basic.patterns.mrtr#4: check reports a server that breaks it
  it('modern.input-required: prompts/list answered input_required (basic.patterns.mrtr#4)', T, () => catches('input-required-on-list', ['modern.cache-hints']));
  // cites basic.transports.streamable_http#55: check reports a server that breaks it
  it('modern.http-method-header: Mcp-Method not compared with the body (basic.transports.streamable_http#55)', T, () => catches('method-header-ignored'));
  // cites basic.transports.streamable_http#61: check reports a server that breaks it
  it('modern.http-name-header: Mcp-Name not compared with the body (basic.transports.streamable_http#61)', T, () => catches('name-header-ignored'));
  // cites basic.transports.streamable_http#24: check reports a server that breaks it
  it('modern.http-version-header: MCP-Protocol-Version not compared with _meta (basic.transports.streamable_http#24)', T, () => catches('version-header-ignored'));
  // cites basic.transports.streamable_http#26: check reports a server that breaks it
  it('modern.http-method-not-found: an unknown method answered 200 (basic.transports.streamable_http#26)', T, () => catches('unknown-method-200'));
  // cites basic.transports.streamable_http#26: check reports a server that breaks it
  it('modern.http-method-not-found: ping, removed in 2026-07-28, served with 200 (basic.transports.streamable_http#26)', T, () => catches('removed-ping-served'));
  // cites basic.transports.streamable_http#69: check reports a server that breaks it
  it('modern.http-stateless: a session id minted on a stateless server (basic.transports.streamable_http#69)', T, () => catches('mints-session'));
  // cites basic.transports.streamable_http#3: check reports a server that breaks it
  // the clean proxy refuses with 403 and a body with id null: a warning on the body, never a failure
  it('modern.http-origin: a foreign Origin served instead of 403 (basic.transports.streamable_http#3)', T, () => catches('origin-ignored', [], 'warn'));

  it('modern.http-origin: a 403 refusal the check provoked is judged by its status; its body (id null) is a warning there, not a modern.schema failure', T, async () => {
    const r = await planted(undefined, 'http', ['modern.http-origin', 'modern.schema']);
    expect(of(r, 'modern.schema').status, of(r, 'modern.schema').detail).toBe('pass');
    const origin = of(r, 'modern.http-origin');
    expect(origin.status).toBe('warn');
    expect(origin.detail).toMatch(/HTTP 403 as required, but its JSON-RPC body does not validate .*\/id/);
  });
  // cites server.utilities.caching#1: check reports a server that breaks it
  it('modern.cache-hints: tools/list with neither resultType nor cache hints is still judged (server.utilities.caching#1)', T, () => catches('no-hints-no-result-type'));
  // cites basic.patterns.mrtr#9: check reports a server that breaks it
  it('modern.request-state-integrity: a tampered requestState honoured with an answer that has no resultType (basic.patterns.mrtr#9)', T, () => catches('state-unverified-bare'));
  // cites basic#8: check reports a server that breaks it
  it('modern.result-type: every method without resultType is named, an InputRequiredResult without it apart (basic#8)', T, async () => {
    const r = of(await planted('state-unverified-bare', 'stdio', ['modern.request-state-integrity', 'modern.result-type']), 'modern.result-type');
    expect(r.status).toBe('fail');
    expect(r.detail).toMatch(/results have no "resultType" \(tools\/call\)/);
    const s = of(await planted('no-hints-no-result-type', 'http', ['modern.cache-hints', 'modern.result-type']), 'modern.result-type');
    expect(s.detail).toMatch(/have no "resultType" \(tools\/list\)/);
  });
  // cites basic.transports.streamable_http#69: the statelessness duty binds only a server that supports nothing older
  it('modern.http-stateless is not applicable to a server that answers initialize though server/discover lists only 2026-07-28 (basic.transports.streamable_http#69)', T, async () => {
    const mock = await startModernHttpMock({ scenario: { ...SCENARIO, mode: 'dual', legacyVersions: [] }, stderr: () => {} });
    servers.push({ url: mock.url, close: () => mock.close() });
    const r = await runChecks({ transport: 'http', url: mock.url }, { ...OPTS, only: ['modern.discover', 'modern.http-stateless'] });
    expect(r.supportedVersions).toEqual(['2026-07-28']);
    const x = of(r, 'modern.http-stateless');
    expect(x.status, x.detail).toBe('skip');
    expect(x.detail).toMatch(/^not applicable: the server answers initialize \("2025-11-25"\): it speaks the handshake era too/);
  });
  it('modern.schema: a listed tool without inputSchema fails the 2026-07-28 schema', T, () => catches('tool-no-input-schema', ['modern.cache-hints']));
  it('modern.schema: every server message validates against the 2026-07-28 schema; a tools/list result without resultType does not', T, async () => {
    for (const transport of ['stdio', 'http'] as const) {
      const bad = of(await planted('no-result-type', transport, ['modern.cache-hints', 'modern.schema']), 'modern.schema');
      expect(bad.status, `${transport}: ${bad.detail}`).toBe('fail');
      expect(bad.clause).toBe('schema.json 2026-07-28');
      expect(bad.detail).toContain("the response to tools/list does not validate against the 2026-07-28 schema: /result: must have required property 'resultType'");
      const good = of(await planted(undefined, transport, ['modern.cache-hints', 'modern.schema']), 'modern.schema');
      expect(good.status, `${transport}: ${good.detail}`).toBe('pass');
    }
  });
});
