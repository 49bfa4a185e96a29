/**
 * `mcpwire check`: the runner's bookkeeping (selection, verdict → status, report, exit code),
 * the clean fixture passing the whole battery, and the command itself (in-process and as a
 * child process from dist/).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import checkCommand from '../../src/cli/commands/check.js';
import { checkExitCode, renderCheckReport } from '../../src/check/run/report.js';
import { ALL_CHECKS, runChecks, selectChecks, summarize, toResult } from '../../src/check/run/runner.js';
import type { CheckReport } from '../../src/check/core/types.js';
import { BUGS } from '../../mock-servers/check-fixtures/core.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../../mock-servers/check-fixtures/server.mjs', import.meta.url));
const stdioTarget = (...args: string[]) => ({ transport: 'stdio' as const, id: 'fixture', command: process.execPath, args: [fixture, ...args] });
const FAST = { timeoutMs: 15_000, cancelRunMs: 3000 };

describe('check registry', () => {
  it('every check has a unique id, a title, a clause and a level', () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of ALL_CHECKS) {
      expect(c.id).toMatch(/^[a-z][a-z-]*\.[a-z0-9-]+$/);
      expect(c.title.length).toBeGreaterThan(5);
      // a spec clause, JSON-RPC 2.0, schema.json — or, for *.fixture-expect, the --fixtures (or suite profile) expectations
      expect(c.clause).toMatch(c.id.endsWith('.fixture-expect') ? /^--fixtures expect$/ : /^(basic|server|client)[.#/]|^jsonrpc-2\.0 §|^schema\.json |^apps 2026-01-26 /);
      expect(['MUST', 'SHOULD']).toContain(c.level);
    }
  });

  it('every stdio-capable check has a fixture knob that breaks it (HTTP ones: check-http; robustness: check-robustness)', () => {
    const broken = new Set(Object.values(BUGS));
    // 2026-07-28 checks have their planted bugs in mock-servers/check-modern (test/check-modern*.test.ts),
    // MCP Apps checks theirs in mock-servers/apps (test/apps/apps-check.test.ts)
    const missing = ALL_CHECKS.filter((c) => c.transport !== 'http' && c.robustness !== true && !c.id.startsWith('modern.') && !c.id.startsWith('apps.') && !broken.has(c.id)).map((c) => c.id);
    expect(missing).toEqual([]);
  });

  it('--only selects by id or group prefix and rejects unknown names', () => {
    expect(selectChecks(['tools']).map((c) => c.id)).toEqual(ALL_CHECKS.filter((c) => c.id.startsWith('tools.')).map((c) => c.id));
    expect(selectChecks(['ping.empty-result', 'lifecycle.version-echo']).map((c) => c.id)).toEqual(['lifecycle.version-echo', 'ping.empty-result']);
    expect(() => selectChecks(['nope'])).toThrow(/no check or clause named "nope"/);
    // The robustness battery only with --robustness.
    expect(selectChecks(undefined)).toHaveLength(ALL_CHECKS.filter((c) => c.robustness !== true).length);
  });
});

describe('verdicts, report and exit code', () => {
  const must = ALL_CHECKS.find((c) => c.id === 'ping.empty-result')!;
  const should = ALL_CHECKS.find((c) => c.id === 'tools.names-format')!;

  it('a violated MUST is a failure naming the clause, a violated SHOULD a warning; evidence is bounded and escaped', () => {
    const evil = { jsonrpc: '2.0', id: 1, result: { pong: `\u001b[31m${'x'.repeat(5000)}` } };
    const f = toResult(must, { status: 'violated', detail: 'not empty', evidence: evil }, 12);
    expect(f.status).toBe('fail');
    expect(f.detail).toBe('basic.utilities.ping#1 (MUST): not empty');
    expect(f.evidence!.length).toBeLessThan(500);
    expect(f.evidence).not.toContain('\u001b');
    const w = toResult(should, { status: 'violated', detail: 'bad name' }, 1);
    expect(w.status).toBe('warn');
    const o = toResult(must, { status: 'violated', detail: 'meh', level: 'SHOULD', clause: 'server.tools#7' }, 1);
    expect(o).toMatchObject({ status: 'warn', level: 'SHOULD', clause: 'server.tools#7' });
    expect(toResult(must, { status: 'skip', detail: 'not applicable: x' }, 1)).toMatchObject({ status: 'skip', detail: 'not applicable: x' });
  });

  it('exit code: 1 on failure or checker error; warnings only with --fail-on-warning', () => {
    const rep = (statuses: CheckReport['results'][number]['status'][]): CheckReport => {
      const results = statuses.map((status) => ({ ...toResult(must, { status: 'pass' }, 0), status }));
      return { target: 't', results, summary: summarize(results), durationMs: 0 };
    };
    expect(checkExitCode(rep(['pass', 'skip']))).toBe(0);
    expect(checkExitCode(rep(['pass', 'fail']))).toBe(1);
    expect(checkExitCode(rep(['pass', 'error']))).toBe(1);
    expect(checkExitCode(rep(['warn']))).toBe(0);
    expect(checkExitCode(rep(['warn']), true)).toBe(1);
  });

  it('not-applicable checks (the other era, the other transport) are one line under the table; --verbose lists them as rows', () => {
    const results = [
      toResult(should, { status: 'pass' }, 1),
      ...Array.from({ length: 30 }, () => toResult(must, { status: 'skip', detail: 'not applicable: 2026-07-28 only; the server is checked at 2025-11-25' }, 0)),
      toResult(must, { status: 'skip', detail: 'blocked: no working session' }, 0),
    ];
    const report = { target: 'node x.mjs', results, summary: summarize(results), durationMs: 1500 };
    const text = renderCheckReport(report);
    expect(text).not.toContain('not applicable: 2026-07-28 only');
    expect(text).toContain('(30 checks not applicable to this server — of the other era or transport — not shown; --verbose lists them');
    expect(text).toContain('blocked: no working session');
    expect(text).toContain('1 passed, 0 failed, 0 warnings, 31 skipped');
    const verbose = renderCheckReport(report, { verbose: true });
    expect(verbose.split('\n').filter((l) => l.includes('not applicable: 2026-07-28 only'))).toHaveLength(30);
    expect(verbose).not.toContain('not shown');
  });

  it('the table lists every check and explains failures with the offending message', () => {
    const results = [
      toResult(must, { status: 'violated', detail: 'the ping result MUST be empty', evidence: { jsonrpc: '2.0', id: 3, result: { pong: true } } }, 1),
      toResult(should, { status: 'pass' }, 1),
    ];
    const text = renderCheckReport({ target: 'node x.mjs', results, summary: summarize(results), durationMs: 1500 });
    expect(text).toContain('FAIL    ping.empty-result');
    expect(text).toContain('FAIL ping.empty-result: basic.utilities.ping#1 (MUST): the ping result MUST be empty');
    expect(text).toContain('offending: {"jsonrpc":"2.0","id":3,"result":{"pong":true}}');
    expect(text).toContain('1 passed, 1 failed, 0 warnings, 0 skipped');
  });
});

// The battery's runs and the command's are independent (each starts its own fixture processes):
// the two groups run at once, the command's short runs inside the full battery's waits
// (cancellation, progress, the logging quiet window); the command's tests share the captured
// output and stay one after another.
describe('the clean fixture passes the battery', { concurrent: true }, () => {
  it('0 failures, 0 warnings; only not-applicable checks skipped', { timeout: 120_000 }, async ({ expect }) => {
    const report = await runChecks(stdioTarget(), FAST);
    const bad = report.results.filter((r) => r.status !== 'pass' && r.status !== 'skip');
    expect(bad).toEqual([]);
    const skipped = report.results.filter((r) => r.status === 'skip');
    for (const r of skipped) expect(r.detail).toMatch(/^not applicable: /);
    // A handshake-era server: every check of 2026-07-28 is not applicable.
    expect(report.era).toBe('handshake');
    expect(skipped.filter((r) => r.id.startsWith('modern.')).map((r) => r.detail)).toEqual(ALL_CHECKS.filter((c) => c.id.startsWith('modern.')).map(() => 'not applicable: 2026-07-28 only; the server is checked at the handshake era'));
    // Over stdio every http.* check is not applicable; the others below for the reason given.
    // The fixture is no MCP Apps server: every apps.* check is not applicable (test/apps/apps-check.test.ts).
    expect(skipped.filter((r) => r.id.startsWith('apps.')).map((r) => r.id)).toEqual(ALL_CHECKS.filter((c) => c.id.startsWith('apps.')).map((c) => c.id));
    expect(skipped.map((r) => r.id).filter((id) => !id.startsWith('http.') && !id.startsWith('modern.') && !id.startsWith('apps.')).sort()).toEqual([
      'capabilities.undeclared-refused', // the fixture declares every capability
      'tasks.ignored-when-undeclared', // the fixture declares tasks
      'tools.content-base64', // no tool result carries image/audio data
      'tools.embedded-resources-capability', // no tool result embeds a resource
    ]);
    // No --fixtures: the suite profile judges the fixture's reference names (test_simple_text…).
    for (const id of ['tools.fixture-expect', 'tools.schema-preserved', 'resources.template-read', 'resources.fixture-expect', 'prompts.arguments-substituted']) {
      expect(report.results.find((r) => r.id === id)?.status, id).toBe('pass');
    }
    expect(skipped.filter((r) => r.id.startsWith('http.')).every((r) => r.detail === 'not applicable: http only')).toBe(true);
    expect(ALL_CHECKS.filter((c) => c.id.startsWith('http.')).every((c) => skipped.some((r) => r.id === c.id))).toBe(true);
    expect(report.protocolVersion).toBe('2025-11-25');
    expect(report.serverInfo).toEqual({ name: 'check-fixture', version: '1.0.0' });
  });

  it('lifecycle.before-initialize sends a list the server declares: with no tools, a server serving resources/list before initialize warns (basic.lifecycle#1)', { timeout: 60_000 }, async ({ expect }) => {
    // tools/list would get -32601 (no tools) whatever the lifecycle: no evidence of a refusal.
    const lenient = await runChecks(stdioTarget('--bug=caps-no-tools,accept-before-init'), { ...FAST, only: ['lifecycle.before-initialize'] });
    expect(lenient.results[0]).toMatchObject({ id: 'lifecycle.before-initialize', status: 'warn' });
    expect(lenient.results[0].detail).toContain('resources/list sent before initialize was served');
    const strict = await runChecks(stdioTarget('--bug=caps-no-tools'), { ...FAST, only: ['lifecycle.before-initialize'] });
    expect(strict.results[0]).toMatchObject({ status: 'pass', detail: 'resources/list refused with error -32600' });
  });

  it('with only tools declared, undeclared capabilities are probed and refused (-32601)', { timeout: 60_000 }, async ({ expect }) => {
    const report = await runChecks(stdioTarget('--bug=caps-tools-only'), { ...FAST, only: ['capabilities', 'jsonrpc', 'logging'] });
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId['capabilities.undeclared-refused']).toMatchObject({ status: 'pass' });
    expect(byId['capabilities.undeclared-refused'].detail).toContain('resources/list, prompts/list, completion/complete, logging/setLevel → -32601');
    expect(byId['logging.set-level'].detail).toMatch(/^not applicable/);
    expect(report.summary.fail).toBe(0);
  });
});

describe('mcpwire check (command)', { concurrent: true }, () => {
  let out = '';
  let err = '';
  afterEach(() => {
    vi.restoreAllMocks();
    out = '';
    err = '';
  });
  function capture(): void {
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  }
  const stdioArg = (bug?: string) => `"${process.execPath}" "${fixture}"${bug ? ` --bug=${bug}` : ''}`;

  it.sequential('--json --only: a clean run exits 0 with a machine-readable report', { timeout: 60_000 }, async ({ expect }) => {
    capture();
    const code = await checkCommand(['--stdio', stdioArg(), '--json', '--only', 'lifecycle,ping']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as CheckReport;
    expect(report.results.map((r) => r.id)).toEqual(ALL_CHECKS.filter((c) => /^(lifecycle|ping)\./.test(c.id)).map((c) => c.id));
    expect(report.summary.fail).toBe(0);
  });

  it.sequential('a failing check exits 1 and the table names the clause and quotes the message', { timeout: 60_000 }, async ({ expect }) => {
    capture();
    const code = await checkCommand(['--stdio', stdioArg('ping-nonempty'), '--only', 'ping']);
    expect(code).toBe(1);
    expect(out).toContain('FAIL ping.empty-result: basic.utilities.ping#1 (MUST)');
    expect(out).toMatch(/offending: \{"jsonrpc":"2.0","id":\d+,"result":\{"pong":true\}\}/);
  });

  it.sequential('warnings exit 0, or 1 with --fail-on-warning', { timeout: 60_000 }, async ({ expect }) => {
    capture();
    expect(await checkCommand(['--stdio', stdioArg('bad-tool-name'), '--only', 'tools.names-format'])).toBe(0);
    expect(out).toContain('WARN tools.names-format: server.tools#7 (SHOULD)');
    expect(await checkCommand(['--stdio', stdioArg('bad-tool-name'), '--only', 'tools.names-format', '--fail-on-warning'])).toBe(1);
  });

  it.sequential('usage errors exit 2: no target, unknown check', async ({ expect }) => {
    capture();
    expect(await checkCommand([])).toBe(2);
    expect(await checkCommand(['--stdio', 'x', '--only', 'nope'])).toBe(2);
    expect(err).toContain('no check or clause named "nope"');
  });

  it.sequential('--list prints every check with level and clause', async ({ expect }) => {
    capture();
    expect(await checkCommand(['--list'])).toBe(0);
    for (const c of ALL_CHECKS) expect(out).toContain(c.id);
  });

  const mainJs = new URL('../../dist/cli/main.js', import.meta.url);
  const registered = existsSync(mainJs) && readFileSync(mainJs, 'utf8').includes('commands/check.js');
  it.skipIf(!registered).sequential('`mcpwire check` via dist/cli/main.js: exit 0 on a clean server, 1 on a failing one', { timeout: 60_000 }, async ({ expect }) => {
    const run = (bug?: string) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const args = [fileURLToPath(mainJs), 'check', '--stdio', stdioArg(bug), '--only', 'ping,jsonrpc.unknown-method'];
        execFile(process.execPath, args, { cwd: root, timeout: 50_000 }, (e, so) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout: so }));
      });
    const clean = await run();
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('2 passed, 0 failed');
    const broken = await run('ping-nonempty');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('FAIL ping.empty-result: basic.utilities.ping#1 (MUST)');
  });

  const built = existsSync(new URL('../../dist/cli/commands/check.js', import.meta.url));
  it.skipIf(!built).sequential('runs from dist/ in a child process (exit code 1 on a failure)', { timeout: 60_000 }, async ({ expect }) => {
    const script = `import('./dist/cli/commands/check.js').then((m) => m.default(${JSON.stringify(['--stdio', stdioArg('unknown-method-success'), '--only', 'jsonrpc.unknown-method'])})).then((c) => { process.exitCode = c; })`;
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['-e', script], { cwd: root, timeout: 50_000 }, (e, so) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout: so }));
    });
    expect(code).toBe(1);
    expect(stdout).toContain('FAIL jsonrpc.unknown-method: jsonrpc-2.0 §5.1 (MUST): a request for a method that does not exist was answered with success');
  });
});
