/**
 * The official conformance suite (conformance-next, @modelcontextprotocol/conformance
 * 0.2.0-alpha.12, `server --requirements 2025-11-25`) and `mcpwire check` against the same
 * server, `@modelcontextprotocol/server-everything` over Streamable HTTP: every check the suite
 * fails or warns is in the table of src/check/crosscheck-2025-11-25.md (a missing fixture name,
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../src/check/runner.js';
import type { ToolFixtures } from '../src/check/context.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const runner = path.join(here, 'runner');
const runnerNode = path.join(runner, 'node_modules', '.bin', 'node');
const suite = path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js');
const installed = fs.existsSync(runnerNode) && fs.existsSync(suite);
const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const fixtures = (JSON.parse(fs.readFileSync(path.join(here, '..', 'mock-servers', 'check-fixtures', 'everything.fixtures.json'), 'utf8')) as { tools: ToolFixtures }).tools;

type Row =
  | { category: 'fixture' | 'suite'; why: string }
  | { category: 'defect'; checks: Array<{ id: string; clause: string }>; why: string };

const FIXTURE = (why: string): Row => ({ category: 'fixture', why });

/** `<scenario>/<suite check id>` → its category, and for a defect the `check` verdicts that report it. */
const TABLE: Record<string, Row> = {
  'completion-complete/completion-complete': FIXTURE('prompt test_prompt_with_arguments'),
  'elicitation-sep1034-defaults/elicitation-sep1034-general': FIXTURE('tool test_elicitation_sep1034_defaults'),
  'elicitation-sep1330-enums/elicitation-sep1330-general': FIXTURE('tool test_elicitation_sep1330_enums'),
  'json-schema-2020-12/json-schema-2020-12-tool-found': FIXTURE('tool json_schema_2020_12_tool'),
  'prompts-get-embedded-resource/prompts-get-embedded-resource': FIXTURE('prompt test_prompt_with_embedded_resource'),
  'prompts-get-simple/prompts-get-simple': FIXTURE('prompt test_simple_prompt'),
  'prompts-get-with-args/prompts-get-with-args': FIXTURE('prompt test_prompt_with_arguments'),
  'prompts-get-with-image/prompts-get-with-image': FIXTURE('prompt test_prompt_with_image'),
  'resources-read-binary/resources-read-binary': FIXTURE('resource test://static-binary'),
  'resources-read-text/resources-read-text': FIXTURE('resource test://static-text'),
  'resources-templates-read/resources-templates-read': FIXTURE('template test://template/{id}/data'),
  'server-sse-polling/incoming-sse-event': FIXTURE('tool test_reconnection (its "not found" isError result)'),
  'tools-call-audio/tools-call-audio': FIXTURE('tool test_audio_content'),
  'tools-call-elicitation/tools-call-elicitation': FIXTURE('tool test_elicitation'),
  'tools-call-embedded-resource/tools-call-embedded-resource': FIXTURE('tool test_embedded_resource'),
  'tools-call-image/tools-call-image': FIXTURE('tool test_image_content'),
  'tools-call-mixed-content/tools-call-mixed-content': FIXTURE('tool test_multiple_content_types'),
  'tools-call-sampling/tools-call-sampling': FIXTURE('tool test_sampling'),
  'tools-call-with-logging/tools-call-with-logging': FIXTURE('tool test_tool_with_logging'),
  'tools-call-with-progress/tools-call-with-progress': FIXTURE('tool test_tool_with_progress'),
  'server-sse-polling/server-sse-retry-field': {
    category: 'suite',
    why: 'retry is asked for only when the server closes a stream before its response (basic.transports#22); with no test_reconnection tool nothing closes early',
  },
  'dns-rebinding-protection/localhost-host-rebinding-rejected': {
    category: 'defect',
    checks: [
      { id: 'http.origin-forbidden', clause: 'basic.transports#9' },
      { id: 'http.host-validated', clause: 'basic.transports#8' },
    ],
    why: 'a foreign Host and Origin are served (HTTP 200)',
  },
  'server-session-lifecycle/server-session-terminated-returns-404': {
    category: 'defect',
    checks: [{ id: 'http.delete-then-404', clause: 'basic.transports#44' }],
    why: 'a request with a terminated session id gets 400, not 404',
  },
};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** Runs the suite's 2025-11-25 requirements against `url`; its FAILURE/WARNING checks as `<scenario>/<id>`. */
function runSuite(url: string, cwd: string): Promise<string[]> {
  const out = path.join(cwd, 'results');
  return new Promise((resolve, reject) => {
    const child = spawn(runnerNode, [suite, 'server', '--url', url, '--requirements', '2025-11-25', '-o', out], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
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

describe.skipIf(!installed)('the official suite (2025-11-25) and mcpwire check on server-everything over Streamable HTTP', () => {
  let child: ChildProcess | undefined;
  let url = '';
  let cwd = '';
  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [everything, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => d.toString().includes('listening') && resolve();
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`server-everything exited (${code})`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-crosscheck-'));
  }, 60_000);
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('every suite failure is triaged, and each real defect is a failing or warning check with its clause', { timeout: 240_000 }, async () => {
    const found = await runSuite(url, cwd);
    expect(found.length, 'the suite ran and reported its failures').toBeGreaterThan(0);
    expect(found.filter((k) => TABLE[k] === undefined), 'suite failures not in the table').toEqual([]);
    const defects = found.map((k) => TABLE[k]).filter((r): r is Extract<Row, { category: 'defect' }> => r.category === 'defect');
    expect(defects.length, 'the suite reports the two known defects').toBe(2);

    const report = await runChecks({ transport: 'http', id: 'everything-http', url }, { timeoutMs: 20_000, fixtures, protocolVersion: '2025-11-25' });
    for (const row of defects) {
      for (const want of row.checks) {
        const got = report.results.find((r) => r.id === want.id);
        expect({ id: want.id, status: got?.status, clause: got?.clause }, row.why).toEqual({ id: want.id, status: expect.stringMatching(/^(fail|warn)$/), clause: want.clause });
      }
    }
  });
});
