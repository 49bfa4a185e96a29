/**
 * `mcpwire check` and `mcpwire snapshot` as CI uses them (the built CLI, real fixture processes):
 * --list (≥ 70 checks with clause and level), --junit (parsed by a strict XML parser: one
 * testcase per check, failure/skipped/warning mapped), --json, --only/--skip by id, group and
 * clause prefix, --fail-on-warning, configured servers by id and --all with a summary, safe by
 * default (a tool not annotated read-only is called only with --fixtures or --allow-calls),
 * and snapshot -o / snapshot diff (removed tool and new required argument are breaking → exit 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { cli, type CliRun } from '../support/cli-process.js';
import { findAll, parseXml } from '../support/xml.js';
import { tempDirs } from '../support/temp-dirs.js';

/** Fresh folders, removed after the file's last test. */
const freshDir = tempDirs('mcpwire-check-cli-');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'mock-servers/check-fixtures/server.mjs');
const node = process.execPath;
const fx = (bug?: string) => `${JSON.stringify(node)} ${JSON.stringify(FIXTURE)}${bug ? ` --bug=${bug}` : ''}`;

async function run(args: string[], cwd = freshDir()): Promise<CliRun & { cwd: string }> {
  const r = await runCliHere(args, { cwd, env: { ...process.env, HOME: cwd, XDG_CONFIG_HOME: join(cwd, '.config') }, timeoutMs: 170_000 });
  return { ...r, cwd };
}

describe('mcpwire check (CLI)', () => {
  it('--list: at least 70 checks, each with its clause id and level', async () => {
    const r = await run(['check', '--list', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; level: string; clause: string }>;
    expect(list.length).toBeGreaterThanOrEqual(70);
    for (const c of list) {
      expect(c.level).toMatch(/^(MUST|SHOULD)$/);
      expect(c.clause.length, c.id).toBeGreaterThan(3);
    }
    const text = await run(['check', '--list']);
    expect(text.stdout.trim().split('\n').filter((l) => /^\S+\s+(MUST|SHOULD)\s+\S/.test(l))).toHaveLength(list.length);
  });

  it('--junit is well-formed JUnit XML: one testcase per check, failure and skipped mapped; --json alongside', { timeout: 120_000 }, async () => {
    const r = await run(['check', '--stdio', fx('ping-nonempty'), '--only', 'ping,lifecycle,http.session-id', '--junit', 'report.xml', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { results: Array<{ id: string; status: string }> };
    const doc = parseXml(readFileSync(join(r.cwd, 'report.xml'), 'utf8'));
    expect(doc.name).toBe('testsuites');
    const cases = findAll(doc, 'testcase');
    expect(cases).toHaveLength(report.results.length);
    const ping = cases.find((c) => c.attrs.name.startsWith('ping.empty-result '))!;
    expect(ping.attrs.name).toContain('[basic.utilities.ping#1 MUST]');
    expect(findAll(ping, 'failure')[0].text).toContain('"pong"');
    const skipped = cases.find((c) => c.attrs.name.startsWith('http.session-id '))!;
    expect(findAll(skipped, 'skipped')).toHaveLength(1);
    expect(findAll(doc, 'testsuite')[0].attrs.failures).toBe('1');
  });

  it('a warning passes unless --fail-on-warning (then a JUnit failure of type "warning")', { timeout: 120_000 }, async () => {
    const args = ['check', '--stdio', fx('invalid-cursor-accepted'), '--only', 'pagination', '--skip', 'pagination.cursor-stable', '--junit', 'w.xml'];
    const lenient = await run(args);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout).toContain('WARN pagination.invalid-cursor');
    expect(lenient.stdout).not.toContain('pagination.cursor-stable');
    let doc = parseXml(readFileSync(join(lenient.cwd, 'w.xml'), 'utf8'));
    const warnCase = () => findAll(doc, 'testcase').find((c) => c.attrs.name.startsWith('pagination.invalid-cursor '))!;
    expect(findAll(warnCase(), 'system-out')[0].text).toMatch(/^WARNING \(SHOULD\): server\.utilities\.pagination#5/);
    const strict = await run([...args, '--fail-on-warning']);
    expect(strict.code).toBe(1);
    doc = parseXml(readFileSync(join(strict.cwd, 'w.xml'), 'utf8'));
    expect(findAll(warnCase(), 'failure')[0].attrs.type).toBe('warning');
  });

  it('--only / --skip take ids, groups and clause prefixes; a name matching nothing is a usage error', { timeout: 120_000 }, async () => {
    const r = await run(['check', '--stdio', fx(), '--only', 'basic.utilities.tasks', '--skip', 'tasks.listed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(r.stdout) as { results: Array<{ id: string }> }).results.map((x) => x.id);
    expect(ids).toContain('tasks.transitions');
    expect(ids).toContain('tools.task-required'); // cites basic.utilities.tasks#8
    expect(ids).not.toContain('tasks.listed');
    expect(ids).not.toContain('ping.empty-result');
    const bad = await run(['check', '--stdio', fx(), '--only', 'no-such-check']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no check or clause named "no-such-check"');
  });

  it('safe by default: a tool not annotated read-only is called only with --fixtures or --allow-calls', { timeout: 120_000 }, async () => {
    const detail = async (extra: string[]) => {
      const r = await run(['check', '--stdio', fx(), '--only', 'tools.call-result', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { results: Array<{ detail: string }> }).results[0].detail;
    };
    const safe = await detail([]);
    expect(safe).toContain('echo (read-only by its annotations)');
    expect(safe).not.toContain('write-file');
    const dir = freshDir();
    writeFileSync(join(dir, 'f.json'), JSON.stringify({ tools: { 'write-file': { arguments: {} } } }));
    expect(await detail(['--fixtures', join(dir, 'f.json')])).toContain('write-file (named in --fixtures)');
    expect(await detail(['--allow-calls'])).toContain('write-file (--allow-calls)');
  });

  it('--fixtures: expectations (schemas, resources, prompts) are read, a snapshot of a known-good run counts as one, a malformed one is a usage error', { timeout: 170_000 }, async () => {
    const dir = freshDir();
    const only = ['--only', 'tools.schema-preserved,resources.fixture-expect,prompts.arguments-substituted', '--json'];
    const results = (r: CliRun) => Object.fromEntries((JSON.parse(r.stdout) as { results: Array<{ id: string; status: string; detail: string }> }).results.map((x) => [x.id, x]));
    writeFileSync(join(dir, 'f.json'), JSON.stringify({ prompts: { summarize: { arguments: { topic: 'zebras' } } }, resources: { 'mock://docs/guide': { mimeType: 'text/plain', textIncludes: 'guide' } } }));
    const own = await run(['check', '--stdio', fx(), '--fixtures', join(dir, 'f.json'), ...only]);
    expect(own.code, own.stderr).toBe(0);
    expect(results(own)['prompts.arguments-substituted'].detail).toContain('summarize');
    expect(results(own)['resources.fixture-expect'].detail).toContain('mock://docs/guide');
    const snap = await run(['snapshot', '--stdio', fx(), '-o', join(dir, 'good.json')]);
    expect(snap.code, snap.stderr).toBe(0);
    const good = await run(['check', '--stdio', fx(), '--fixtures', join(dir, 'good.json'), ...only]);
    expect(good.code, good.stderr).toBe(0);
    expect(results(good)['tools.schema-preserved'].detail).toContain('echo');
    const drift = await run(['check', '--stdio', fx('bad-input-schema'), '--fixtures', join(dir, 'good.json'), ...only]);
    expect(results(drift)['tools.schema-preserved'].status).toBe('pass'); // a new tool is not drift
    const changed = await run(['check', '--stdio', fx('schema-keywords-dropped'), '--fixtures', join(dir, 'good.json'), ...only]);
    expect(changed.code).toBe(1);
    expect(results(changed)['tools.schema-preserved'].detail).toContain('json_schema_2020_12_tool');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ prompts: { summarize: 'x' } }));
    const bad = await run(['check', '--stdio', fx(), '--fixtures', join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"prompts" must map names to objects');
  });

  it('check <id> and check --all over configured servers: a report each and a summary; exit 1 when one fails', { timeout: 170_000 }, async () => {
    const dir = freshDir();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: {
      good: { transport: 'stdio', command: node, args: [FIXTURE] },
      bad: { transport: 'stdio', command: node, args: [FIXTURE, '--bug=ping-nonempty'] },
    } } }));
    const one = await run(['check', 'good', '--config', config, '--only', 'ping,lifecycle.initialize-result']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('PASS    ping.empty-result');
    const all = await run(['check', '--all', '--config', config, '--only', 'ping,lifecycle.initialize-result', '--json', '--junit', 'all.xml']);
    expect(all.code).toBe(1);
    const out = JSON.parse(all.stdout) as { exitCode: number; servers: Array<{ id: string; exitCode: number; report: { summary: { fail: number } } }> };
    expect(out.servers.map((s) => [s.id, s.exitCode, s.report.summary.fail])).toEqual([['bad', 1, 1], ['good', 0, 0]]); // sorted by id
    expect(findAll(parseXml(readFileSync(join(all.cwd, 'all.xml'), 'utf8')), 'testsuite').map((s) => s.attrs.name)).toEqual(['bad', 'good']);
    const text = await run(['check', '--all', '--config', config, '--only', 'ping']);
    expect(text.stdout).toMatch(/summary:\n {2}FAIL bad .*\n {2}ok {3}good /);
    const unknown = await run(['check', 'nope', '--config', config]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown server "nope"');
  });
});

describe('mcpwire snapshot (CLI)', () => {
  it('snapshot -o writes the normalized surface; diff: removed tool and new required argument are breaking (exit 1), additive only exits 0', { timeout: 120_000 }, async () => {
    const r = await run(['snapshot', '--stdio', fx(), '-o', 'old.json']);
    expect(r.code, r.stderr).toBe(0);
    const old = JSON.parse(readFileSync(join(r.cwd, 'old.json'), 'utf8')) as { tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }>; serverInfo: unknown; capabilities: unknown; prompts: unknown[] };
    expect(old.serverInfo).toEqual({ name: 'check-fixture', version: '1.0.0' });
    const names = old.tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('echo');
    expect(old.prompts.length).toBeGreaterThan(0);
    // Same server again: no changes.
    const again = await run(['snapshot', '--stdio', fx(), '-o', join(r.cwd, 'again.json')]);
    expect(readFileSync(join(r.cwd, 'again.json'), 'utf8')).toBe(readFileSync(join(r.cwd, 'old.json'), 'utf8'));
    expect(again.code).toBe(0);
    const same = await run(['snapshot', 'diff', join(r.cwd, 'old.json'), join(r.cwd, 'again.json')]);
    expect([same.code, same.stdout]).toEqual([0, 'no changes\n']);

    // A release that removes "add" and gives "echo" a new required argument.
    const next = structuredClone(old);
    next.tools = next.tools.filter((t) => t.name !== 'add');
    const echo = next.tools.find((t) => t.name === 'echo')!;
    echo.inputSchema.properties.lang = { type: 'string' };
    echo.inputSchema.required = [...(echo.inputSchema.required ?? []), 'lang'];
    next.tools.push({ name: 'zeta', inputSchema: { properties: {} } });
    writeFileSync(join(r.cwd, 'new.json'), JSON.stringify(next));
    const d = await run(['snapshot', 'diff', join(r.cwd, 'old.json'), join(r.cwd, 'new.json')]);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/breaking \(2\):\n {2}tools\/add: tool "add" removed\n {2}tools\/echo\/inputSchema\/properties\/lang: new required argument "lang"\n/);
    expect(d.stdout).toContain('additive (1):\n  tools/zeta: tool "zeta" added');
    const j = await run(['snapshot', 'diff', join(r.cwd, 'old.json'), join(r.cwd, 'new.json'), '--json']);
    expect((JSON.parse(j.stdout) as { breaking: unknown[] }).breaking).toHaveLength(2);
    // Additive only (new.json → old.json is not; old → only-added is).
    const added = structuredClone(old);
    added.tools.push({ name: 'zeta', inputSchema: { properties: {} } });
    writeFileSync(join(r.cwd, 'added.json'), JSON.stringify(added));
    const a = await run(['snapshot', 'diff', join(r.cwd, 'old.json'), join(r.cwd, 'added.json')]);
    expect(a.code).toBe(0);
    const notSnap = await run(['snapshot', 'diff', join(r.cwd, 'old.json'), cli]);
    expect(notSnap.code).toBe(2);
  });
});
