/**
 * No configured secret leaks, in any form, through a full session. A server
 * (test/fixtures/secret-echo-server.mjs) echoes every secret it was given — env values, the
 * bearer credential alone, Basic `user:pass` decoded and its password, URL-encoded, form-encoded,
 * JSON-escaped, base64, the secrets in its URL's query, the session id — over stdio and over
 * HTTP on 127.0.0.1, and crashes dumping its environment to stderr (HTTP: a 500 whose body is
 * the dump). Scanned: the trace file, the library host's tool results, `status()` and events,
 * and stdout/stderr of the CLI (`npm run build` first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reportError } from '../../src/cli/output.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { createHost, publicToolName, type ResolvedServer } from '../../src/host/index.js';
import { sessionTag } from '../../src/trace/tracer.js';
// @ts-expect-error plain JavaScript fixture without type declarations
import { formsOf, startSecretHttpServer } from '../fixtures/secret-echo-server.mjs';
import { runCliHere } from '../support/cli-in-process.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const fixture = path.join(root, 'test/fixtures/secret-echo-server.mjs');
const cli = path.join(root, 'dist/cli/main.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-secrets-e2e-'));

const ENV = {
  SERVICE_TOKEN: 'svc-tok-8f3e2a91c7',
  DB_PASSWORD: 'db pass "q" & é 42x',
  DATABASE_URL: 'postgres://dbadmin:pg-url-pass-5d1c@db.internal:5432/app',
  ROOT_DIR: '/srv/data/root-4e9f',
  WORKSPACE: 'acme-widgets',
};
/** Not a credential by name or shape: a secret only because the entry lists it in `secret_names`. */
const MARKED = ['WORKSPACE'];
const BEARER = 'http-bearer-6b2f9d04e1';
const BASIC_PAIR = 'svc-user:basic-pw-3a7c';
const BASIC = Buffer.from(BASIC_PAIR).toString('base64');
const QUERY = { key: 'qkey-77aa21', sig: 'qsig-88bb32' };

/**
 * Every form of every secret, by name. ROOT_DIR is configuration, not a credential (by name or
 * shape, src/trace/configured-secrets.ts): it may show anywhere, and does (see the tests).
 */
function secretForms(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (name: string, v: string) => (formsOf(v) as string[]).forEach((f, i) => out.set(`${name}#${i}`, f));
  for (const [k, v] of Object.entries(ENV)) if (k !== 'ROOT_DIR') add(k, v);
  add('DATABASE_URL password', 'pg-url-pass-5d1c');
  add('bearer credential', BEARER);
  add('basic credential', BASIC);
  add('basic user:pass', BASIC_PAIR);
  add('basic password', 'basic-pw-3a7c');
  add('query key', QUERY.key);
  add('query sig', QUERY.sig);
  return out;
}
const ALL = secretForms();

function leaks(text: string, forms: Map<string, string>, sessions: Iterable<string> = []): string[] {
  const found = [...forms].filter(([, f]) => text.includes(f)).map(([name, f]) => `${name} (${f})`);
  // the whole id, or a head of it long enough to matter (an excerpt cut inside it)
  for (const s of sessions) if (text.includes(s.slice(0, 8))) found.push(`session id ${s}`);
  return found;
}

let httpServer: { port: number; sessions: Set<string>; close(): Promise<void> };
beforeAll(async () => {
  httpServer = await startSecretHttpServer();
});
afterAll(async () => {
  await httpServer?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const stdioEntry = () => ({ command: process.execPath, args: [fixture], env: { ...ENV, SECRET_NAMES: Object.keys(ENV).join(',') } });
const secretNames = () => [...MARKED];
const httpUrl = () => `http://127.0.0.1:${httpServer.port}/mcp?key=${QUERY.key}&sig=${QUERY.sig}&page=1`;
const httpHeaders = () => ({ Authorization: `Bearer ${BEARER}`, 'X-Upstream-Auth': `Basic ${BASIC}` });

function resolved(id: string, transport: 'stdio' | 'http', extra: Partial<ResolvedServer['config']>): ResolvedServer {
  return { id, source: 'global', file: '/dev/null', enabled: true, transport, config: { ...emptyNormalizedConfig(), ...extra } };
}

describe('the library host hands out no configured secret', { timeout: 60_000 }, () => {
  it('tool results, failed calls, a crash (stderr env dump), status().lastError and events, over stdio and HTTP; the trace holds none either', async () => {
    const trace = path.join(dir, 'host-trace.jsonl');
    const host = createHost([resolved('leaky', 'stdio', { ...stdioEntry(), secretNames: secretNames() }), resolved('remote', 'http', { url: httpUrl(), headers: httpHeaders() })], {
      permission: 'allow',
      backoff: { maxRetries: 0 },
      clientOptions: { trace: trace, timeoutMs: 15_000 },
    });
    const events: unknown[] = [];
    host.on('status', (s) => events.push(s));
    host.on('diagnostic', (d) => events.push(d));
    await host.start();
    expect(host.status().map((s) => s.state)).toEqual(['ready', 'ready']);

    const results: Record<string, unknown> = {};
    for (const server of ['leaky', 'remote']) {
      for (const tool of ['leak', 'fail', 'crash']) results[`${server}/${tool}`] = await host.callTool(publicToolName(server, tool), {});
    }
    const status = host.status();
    await host.close();

    // the server really leaked: the results say so, redacted
    const leak = results['leaky/leak'] as { content: { text: string }[]; isError: boolean };
    expect(leak.isError).toBe(false);
    expect(leak.content[0].text).toContain('[redacted]');
    // ROOT_DIR is configuration, not a credential: results, even error results, show it (module comment of src/host/redaction.ts)
    expect(leak.content[0].text).toContain(ENV.ROOT_DIR);
    expect((results['leaky/fail'] as { content: { text: string }[] }).content[0].text).toContain(`ROOT_DIR=${ENV.ROOT_DIR}`);
    for (const [name, r] of Object.entries(results)) expect(leaks(JSON.stringify(r), ALL, httpServer.sessions), name).toEqual([]);
    expect((results['leaky/crash'] as { isError: boolean; content: { text: string }[] }).content[0].text).toMatch(/failed: .*stderr tail.*SERVICE_TOKEN=\[redacted\]/);
    expect((results['remote/crash'] as { content: { text: string }[] }).content[0].text).toMatch(/HTTP 500/);

    const leaky = status.find((s) => s.id === 'leaky')!;
    expect(leaky.state).toBe('error');
    expect(leaky.lastError).toMatch(/stderr tail: FATAL.*SERVICE_TOKEN=\[redacted\]/);
    expect(leaks(JSON.stringify(status), ALL, httpServer.sessions)).toEqual([]);
    expect(events.length).toBeGreaterThan(0);
    expect(leaks(JSON.stringify(events), ALL, httpServer.sessions)).toEqual([]);

    const text = fs.readFileSync(trace, 'utf8');
    expect(leaks(text, ALL, httpServer.sessions)).toEqual([]);
    expect(text).toContain('[redacted]');
    // the HTTP lines carry the session's short hash, never the id
    const sessions = [...httpServer.sessions];
    expect(sessions.length).toBeGreaterThan(0);
    const tags = new Set(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).session).filter(Boolean));
    expect([...tags].every((t) => sessions.some((s) => sessionTag(s) === t))).toBe(true);
    expect(tags.size).toBeGreaterThan(0);
    // created owner-only
    if (process.platform !== 'win32') expect(fs.statSync(trace).mode & 0o777).toBe(0o600);
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the CLI prints no configured secret and its traces hold none', { timeout: 120_000 }, () => {
  const home = path.join(dir, 'home');
  const globalFile = path.join(dir, 'global', 'config.json');
  const trace = path.join(dir, 'cli-trace.jsonl');
  const env = () => ({ ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: globalFile, MCPWIRE_TRACE: trace });
  const run = (args: string[]): Promise<Run> => runCliHere(args, { cwd: home, env: env() });

  it('status, mcp list (URL query values), tools and failing calls (crash with an env dump, HTTP 500) over stdio and HTTP', async () => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli/main.js missing: run npx tsc -p tsconfig.build.json && node scripts/postbuild.mjs');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(path.dirname(globalFile), { recursive: true });
    fs.writeFileSync(
      globalFile,
      JSON.stringify({ version: 1, mcp: { servers: { leaky: { transport: 'stdio', ...stdioEntry(), secret_names: secretNames() }, remote: { transport: 'http', url: httpUrl(), headers: httpHeaders() } } } }),
    );
    const outputs: { cmd: string; text: string }[] = [];
    const scanned = async (args: string[]): Promise<Run> => {
      const r = await run(args);
      outputs.push({ cmd: `mcpwire ${args.join(' ')}`, text: r.stdout + r.stderr });
      return r;
    };
    const list = await scanned(['mcp', 'list', '--json']);
    expect(list.stdout).toContain('page=1');
    await scanned(['mcp', 'list']);
    await scanned(['status', '--json']);
    await scanned(['status', 'remote']);
    await scanned(['tools', '--json']);
    const crash = await scanned(['call', 'leaky', 'crash']);
    expect(crash.code).toBe(1);
    expect(crash.stderr).toContain('SERVICE_TOKEN=[redacted]');
    const http500 = await scanned(['call', 'remote', 'crash']);
    expect(http500.stderr).toMatch(/HTTP 500/);
    // A successful `call` prints the server's result as it is (the person asked for it): only
    // its trace and stderr are scanned here.
    const leak = await run(['call', 'remote', 'leak', '--json']);
    expect(leak.code).toBe(0);
    outputs.push({ cmd: 'mcpwire call remote leak (stderr)', text: leak.stderr });

    // Every form, the URL's query credentials included (the CLI's scrubber takes configSecrets).
    for (const o of outputs) expect(leaks(o.text, ALL), o.cmd).toEqual([]);
    expect(list.stdout).not.toContain(QUERY.key);
    expect(list.stdout).not.toContain(QUERY.sig);
    const text = fs.readFileSync(trace, 'utf8');
    expect(leaks(text, ALL, httpServer.sessions)).toEqual([]);
    expect(text).toContain('"session":"sha256:');
    if (process.platform !== 'win32') expect(fs.statSync(trace).mode & 0o777).toBe(0o600);
  });
});

describe('errors the CLI prints for ad-hoc targets', () => {
  it('reportError hides credential query values, URL user info, Authorization and env-style assignments', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      reportError(new Error(`--url is not a valid URL: ht!tp://u:url-pw-4242@x/mcp?key=${QUERY.key}&sig=${QUERY.sig}&page=1`));
      reportError(new Error('server said: Authorization: Token tok-abcdef123456; API_TOKEN=envtok-987654'));
    } finally {
      spy.mockRestore();
    }
    const text = written.join('');
    for (const s of [QUERY.key, QUERY.sig, 'url-pw-4242', 'tok-abcdef123456', 'envtok-987654']) expect(text).not.toContain(s);
    expect(text).toContain('page=1');
    expect(text).toContain('[redacted]');
  });
});
