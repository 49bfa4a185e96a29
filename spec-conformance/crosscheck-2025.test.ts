/**
 * The official conformance suite (conformance-next, @modelcontextprotocol/conformance
 * 0.2.0-alpha.12, `server --requirements 2025-11-25`) and `mcpwire check` against the same
 * server — `@modelcontextprotocol/server-everything` and tmcp, over Streamable HTTP: every check
 * the suite fails or warns is in the table of src/check/crosscheck-2025-11-25.md (a missing fixture name,
 * a real defect, or a suite defect), and every real defect is a failing or warning `check`
 * citing its clause. A new suite failure, or a defect `check` no longer reports, fails here.
 * The suite needs Node >= 22: it runs on spec-conformance/runner's own `node` package (installed
 * by `npm ci` there); without it this file is skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { runChecks } from '../src/check/run/runner.js';
import type { ToolFixtures } from '../src/check/core/context.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const runner = path.join(here, 'runner');
const runnerNode = path.join(runner, 'node_modules', '.bin', 'node');
const suite = path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js');
const installed = fs.existsSync(runnerNode) && fs.existsSync(suite);
const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const tmcp = path.join(here, '..', 'mock-servers', 'interop', 'tmcp-server.mjs');
const fixtures = (JSON.parse(fs.readFileSync(path.join(here, '..', 'mock-servers', 'check-fixtures', 'everything.fixtures.json'), 'utf8')) as { tools: ToolFixtures }).tools;

/** (a): the suite's reference names (or features) a server does not serve, by `<scenario>/<suite check id>`. */
const FIXTURE: Record<string, string> = {
  'completion-complete/completion-complete': 'prompt test_prompt_with_arguments',
  'elicitation-sep1034-defaults/elicitation-sep1034-general': 'tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums/elicitation-sep1330-general': 'tool test_elicitation_sep1330_enums',
  'json-schema-2020-12/json-schema-2020-12-tool-found': 'tool json_schema_2020_12_tool',
  'logging-set-level/logging-set-level': 'logging not declared: -32601 is right',
  'prompts-get-embedded-resource/prompts-get-embedded-resource': 'prompt test_prompt_with_embedded_resource',
  'prompts-get-simple/prompts-get-simple': 'prompt test_simple_prompt',
  'prompts-get-with-args/prompts-get-with-args': 'prompt test_prompt_with_arguments',
  'prompts-get-with-image/prompts-get-with-image': 'prompt test_prompt_with_image',
  'resources-read-binary/resources-read-binary': 'resource test://static-binary',
  'resources-read-text/resources-read-text': 'resource test://static-text',
  'resources-subscribe/resources-subscribe': 'resources.subscribe not declared: -32601 is right',
  'resources-templates-read/resources-templates-read': 'template test://template/{id}/data',
  'resources-unsubscribe/resources-unsubscribe': 'resources.subscribe not declared: -32601 is right',
  'server-sse-polling/incoming-sse-event': 'tool test_reconnection (its "not found" isError result)',
  'tools-call-audio/tools-call-audio': 'tool test_audio_content',
  'tools-call-elicitation/tools-call-elicitation': 'tool test_elicitation',
  'tools-call-embedded-resource/tools-call-embedded-resource': 'tool test_embedded_resource',
  'tools-call-image/tools-call-image': 'tool test_image_content',
  'tools-call-mixed-content/tools-call-mixed-content': 'tool test_multiple_content_types',
  'tools-call-sampling/tools-call-sampling': 'tool test_sampling',
  'tools-call-with-logging/tools-call-with-logging': 'tool test_tool_with_logging',
  'tools-call-with-progress/tools-call-with-progress': 'tool test_tool_with_progress',
};

/** (c): the suite asks for more than the spec. */
const SUITE_DEFECT: Record<string, string> = {
  'server-sse-polling/server-sse-retry-field':
    'retry is asked for only when the server closes a stream before its response (basic.transports#22); with no test_reconnection tool nothing closes early',
};

type Defects = Record<string, Array<{ id: string; clause: string }>>;

/** (b): per server, each real defect the suite reports → the `check` verdicts (fail or warn) that report it. */
const EVERYTHING_DEFECTS: Defects = {
  // a foreign Host and Origin are served (HTTP 200)
  'dns-rebinding-protection/localhost-host-rebinding-rejected': [
    { id: 'http.origin-forbidden', clause: 'basic.transports#9' },
    { id: 'http.host-validated', clause: 'basic.transports#8' },
  ],
  // a request with a terminated session id gets 400, not 404
  'server-session-lifecycle/server-session-terminated-returns-404': [{ id: 'http.delete-then-404', clause: 'basic.transports#44' }],
};
const TMCP_DEFECTS: Defects = {
  // tmcp refuses a foreign Origin alone but serves the DNS-rebinding request (foreign Host, matching Origin)
  'dns-rebinding-protection/localhost-host-rebinding-rejected': [{ id: 'http.origin-forbidden', clause: 'basic.transports#9' }],
  // a request with a terminated session id gets 200
  'server-session-lifecycle/server-session-terminated-returns-404': [{ id: 'http.delete-then-404', clause: 'basic.transports#44' }],
  // completion/complete (undeclared) answered with "result": null, which the suite's client drops
  'completion-complete/scenario-timeout': [
    { id: 'schema.strict', clause: 'schema.json 2025-11-25' },
    { id: 'capabilities.undeclared-refused', clause: 'server.utilities.completion#1' },
  ],
  'server-sse-polling/server-sse-priming-event': [{ id: 'http.sse-priming', clause: 'basic.transports#20' }],
};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/**
 * The suite's bound on one scenario (`--timeout`) for a server with a scenario that never ends: tmcp
 * answers completion/complete with `"result": null`, which the suite's client drops, so that
 * scenario waits out the bound and reports completion-complete/scenario-timeout (a known defect
 * below) however long the bound is. The suite's default is 30 s; every other scenario against
 * these servers ends within about 2 s (within 6 s on a machine loaded far past CI's), so 15 s
 * still tells a hung scenario from a slow one.
 */
const HUNG_SCENARIO_MS = 15_000;

/** Runs the suite's 2025-11-25 requirements against `url`; its FAILURE/WARNING checks as `<scenario>/<id>`. */
function runSuite(url: string, cwd: string, scenarioMs?: number): Promise<string[]> {
  const out = fs.mkdtempSync(path.join(cwd, 'results-'));
  const args = [suite, 'server', '--url', url, '--requirements', '2025-11-25', '-o', out, ...(scenarioMs !== undefined ? ['--timeout', String(scenarioMs)] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(runnerNode, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      const found: string[] = [];
      for (const dir of fs.existsSync(out) ? fs.readdirSync(out) : []) {
        const file = path.join(out, dir, 'checks.json');
        if (!fs.existsSync(file)) continue;
        const scenario = dir.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '').replace(/^server-/, '');
        for (const c of JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ id: string; status: string }>) {
          if (c.status === 'FAILURE' || c.status === 'WARNING') found.push(`${scenario}/${c.id}`);
        }
      }
      resolve(found.sort());
    });
  });
}

/** Starts `args` (a server printing its URL or "listening"); resolves with the child and its URL. */
async function start(args: string[], env: NodeJS.ProcessEnv, urlOf: (out: string) => string | undefined): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const u = urlOf(out);
      if (u !== undefined) resolve(u);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited (${code})`)));
  });
  return { child, url };
}

/**
 * The suite's failures are all triaged; each real defect it reports is a fail/warn `check` with its
 * clause. The suite runs against `urls[0]` and check against `urls[1]`, at once: two instances of
 * the same server (program and arguments), so neither run meets the other's sessions.
 */
async function crossCheck(
  expect: ExpectStatic,
  urls: [string, string],
  cwd: string,
  defects: Defects,
  options: { fixtures?: ToolFixtures; scenarioMs?: number } = {},
): Promise<void> {
  const { scenarioMs, ...checkOptions } = options;
  const [found, report] = await Promise.all([
    runSuite(urls[0], cwd, scenarioMs),
    runChecks({ transport: 'http', id: 'crosscheck', url: urls[1] }, { timeoutMs: 20_000, protocolVersion: '2025-11-25', ...checkOptions }),
  ]);
  expect(found.length, 'the suite ran and reported its failures').toBeGreaterThan(0);
  expect(found.filter((k) => FIXTURE[k] === undefined && SUITE_DEFECT[k] === undefined && defects[k] === undefined), 'suite failures not triaged').toEqual([]);
  expect(Object.keys(defects).filter((k) => !found.includes(k)), 'known defects the suite no longer reports').toEqual([]);
  for (const [key, checks] of Object.entries(defects)) {
    for (const want of checks) {
      const got = report.results.find((r) => r.id === want.id);
      expect({ key, id: want.id, status: got?.status, clause: got?.clause }).toEqual({ key, id: want.id, status: expect.stringMatching(/^(fail|warn)$/), clause: want.clause });
    }
  }
}

// two servers, each with its own suite run and check run: at once, their waits overlapping
describe.skipIf(!installed).concurrent('the official suite (2025-11-25) and mcpwire check on the same server, over Streamable HTTP', () => {
  const children: ChildProcess[] = [];
  let cwd = '';
  beforeAll(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-crosscheck-'));
  });
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
  });

  /** Two instances of a server: one for the suite, one for check. */
  const twice = (serve: () => Promise<{ child: ChildProcess; url: string }>): Promise<[string, string]> => {
    const one = async () => {
      const s = await serve();
      children.push(s.child);
      return s.url;
    };
    return Promise.all([one(), one()]);
  };

  it('server-everything: every suite failure is triaged, and each real defect is a failing or warning check with its clause', { timeout: 240_000 }, async ({ expect }) => {
    const urls = await twice(async () => {
      const port = await freePort();
      return start([everything, 'streamableHttp'], { PORT: String(port) }, (out) => (out.includes('listening') ? `http://127.0.0.1:${port}/mcp` : undefined));
    });
    await crossCheck(expect, urls, cwd, EVERYTHING_DEFECTS, { fixtures });
  });

  it('tmcp: every suite failure is triaged, and each real defect is a failing or warning check with its clause (the DNS-rebinding request)', { timeout: 240_000 }, async ({ expect }) => {
    const urls = await twice(() => start([tmcp, 'http', '--port', '0'], {}, (out) => /LISTEN (http:\/\/\S+)/.exec(out)?.[1]));
    await crossCheck(expect, urls, cwd, TMCP_DEFECTS, { scenarioMs: HUNG_SCENARIO_MS });
  });
});
