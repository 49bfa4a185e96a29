/**
 * `mcpwire check --url` against the Streamable HTTP check fixture (a real child process on
 * 127.0.0.1): the clean server passes, and each HTTP knob makes exactly its check fail
 * (basic.transports#9/#40/#44/#49/#50); two core knobs prove the protocol checks work over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runChecks } from '../src/check/run/runner.js';
import type { CheckReport } from '../src/check/core/types.js';
import { HTTP_BUGS } from '../mock-servers/check-fixtures/http-bugs.mjs';
import { ALL_CHECKS } from '../src/check/run/runner.js';

const fixture = fileURLToPath(new URL('../mock-servers/check-fixtures/http-server.mjs', import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

async function server(bug?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [fixture, ...(bug ? [`--bug=${bug}`] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`http fixture exited (${code})`)));
  });
  return { url, child };
}

const SLOW = ['cancellation.honoured', 'progress', 'logging.level-filter'];

async function check(bug?: string, target?: string): Promise<CheckReport> {
  const { url, child } = await server(bug);
  try {
    const skip = bug === undefined ? [] : SLOW.filter((s) => !target?.startsWith(s));
    return await runChecks({ transport: 'http', id: 'fixture', url }, { timeoutMs: 15_000, cancelRunMs: 3000, skip });
  } finally {
    child.stdin!.end();
    child.kill('SIGTERM');
  }
}

const problems = (r: CheckReport) => r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error');

/**
 * A run mostly waits (the fixture's held streams, the silences a check listens to: about 5 s of a
 * knob's 7 to 10) and uses little CPU, but vitest runs at most 5 tests of a file at once. So the runs
 * start ahead of their tests, RUNS_AT_ONCE at a time, each on its own fixture process, in the
 * order of the tests; a test awaits its own run and judges it as before.
 */
const RUNS_AT_ONCE = 10;
let running = 0;
const queued: Array<() => void> = [];
function limited<T>(fn: () => Promise<T>): Promise<T> {
  const go = async () => {
    try {
      return await fn();
    } finally {
      // the slot goes to the next queued run, or is freed
      const next = queued.shift();
      if (next) next();
      else running--;
    }
  };
  if (running < RUNS_AT_ONCE) {
    running++;
    return go();
  }
  return new Promise<void>((resolve) => queued.push(resolve)).then(go);
}

/** Each test's run, by test name: defined with the test, started by beforeAll (only the tests that run). */
const runOf = new Map<string, () => Promise<CheckReport>>();
const started = new Map<string, Promise<CheckReport>>();
function ahead(name: string, run: () => Promise<CheckReport>): () => Promise<CheckReport> {
  runOf.set(name, run);
  return () => started.get(name) ?? run();
}

describe.concurrent('mcpwire check --url (HTTP fixture)', () => {
  // (vitest hands a hook its fixtures first, as an object pattern, then the suite)
  beforeAll(({}, suite) => {
    for (const t of suite.tasks) {
      const run = runOf.get(t.name);
      if (run === undefined || (t.mode !== 'run' && t.mode !== 'only')) continue;
      const p = limited(run);
      p.catch(() => undefined); // its test awaits it and fails on the rejection
      started.set(t.name, p);
    }
  });

  const clean = 'the clean HTTP server passes: 0 failures, 0 warnings, HTTP checks all run';
  const cleanRun = ahead(clean, () => check());
  it(clean, { timeout: 180_000 }, async ({ expect }) => {
    const r = await cleanRun();
    expect(problems(r)).toEqual([]);
    for (const x of r.results.filter((y) => y.id.startsWith('http.'))) expect(x.status, x.id).toBe('pass');
    expect(r.results.find((x) => x.id === 'transport.stdout-clean')?.detail).toBe('not applicable: stdio only');
  });

  const level = (id: string) => (ALL_CHECKS.find((c) => c.id === id)!.level === 'MUST' ? 'fail' : 'warn');
  const cases: Array<[string, string, 'fail' | 'warn']> = [
    ...Object.entries(HTTP_BUGS).map(([bug, id]): [string, string, 'fail' | 'warn'] => [bug, id, level(id)]),
    ['ping-nonempty', 'ping.empty-result', 'fail'],
    ['ignore-cancel', 'cancellation.honoured', 'warn'],
  ];
  /** A knob whose violation is, by nature, also another check's (allowed to fail too). */
  const ALSO: Record<string, string[]> = {
    // A response on the GET stream answers no request of the client: an unknown id too.
    'http-get-sends-response': ['jsonrpc.response-ids'],
  };
  for (const [bug, id, status] of cases) {
    const name = `${id}: --bug=${bug} → ${status}, nothing else fails`;
    const run = ahead(name, () => check(bug, id));
    it(name, { timeout: 180_000 }, async ({ expect }) => {
      const r = await run();
      const target = r.results.find((x) => x.id === id)!;
      expect(target.status, JSON.stringify(target)).toBe(status);
      expect(target.detail).toContain(`${target.clause} (`);
      expect(target.evidence).toBeTruthy();
      const others = r.results.filter((x) => x.id !== id && !(ALSO[bug] ?? []).includes(x.id) && (x.status === 'fail' || x.status === 'error'));
      expect(others, JSON.stringify(others, null, 1)).toEqual([]);
    });
  }
});
