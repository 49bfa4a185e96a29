// clauses: 2026-07-28
/**
 * The modern mock's tasks extension (mock-servers/modern/lib/tasks.mjs) judged by the official
 * conformance suite's tasks scenarios (conformance-next, @modelcontextprotocol/conformance
 * 0.2.0-alpha.12: server scenarios for SEP-2663, "extension" in its 2026-07-28 requirements), so
 * what the client tests in tasks-2026.test.ts and test/era-tasks*.test.ts lean on is what the
 * suite expects of a server: flat CreateTaskResult, DetailedTask with result/error inline, empty
 * acks, -32021 gating, Mcp-Name routing, MRTR before a task, no tasks/result or tasks/list.
 * The suite needs Node >= 22: it runs on spec-conformance/runner's own `node` package (installed
 * by `npm ci` there); without it this file is skipped.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernHttpMock, type ModernHttpMock } from '../mock-servers/modern/http-server.mjs';
import { readModernScenarioFile, resolveModernScenario } from '../mock-servers/modern/lib/scenario.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const runner = path.join(here, 'runner');
const runnerNode = path.join(runner, 'node_modules', '.bin', 'node');
const suite = path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js');
const installed = fs.existsSync(runnerNode) && fs.existsSync(suite);

const SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-mrtr-input',
  'tasks-dispatch-and-envelope',
  'tasks-request-headers',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
  'tasks-request-state-removal',
];

/** Runs one server scenario of the suite against `url`: its "Passed: a/b, n failed" line and output. */
function runScenario(url: string, scenario: string, cwd: string): Promise<{ passed: number; total: number; failed: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runnerNode, [suite, 'server', '--url', url, '--scenario', scenario, '--spec-version', '2026-07-28', '--force'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
      resolve({ passed: Number(m?.[1] ?? 0), total: Number(m?.[2] ?? -1), failed: Number(m?.[3] ?? -1), out });
    });
  });
}

describe.skipIf(!installed)('the official tasks scenarios against the modern mock (scenarios/tasks-conformance.json)', () => {
  let mock: ModernHttpMock;
  let cwd: string;
  beforeAll(async () => {
    mock = await startModernHttpMock({ port: 0, scenario: resolveModernScenario(readModernScenarioFile('tasks-conformance')), stderr: () => {} });
    // the suite writes results/ into its working directory
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-tasks-suite-'));
  });
  afterAll(async () => {
    await mock?.close();
    if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    it(`the tasks extension: ${scenario} passes every check`, async () => {
      const r = await runScenario(mock.url, scenario, cwd);
      const failures = r.out.split('\n').filter((l) => /FAILURE|WARNING/.test(l));
      expect({ failed: r.failed, failures }).toEqual({ failed: 0, failures: [] });
      expect(r.total).toBeGreaterThan(0);
      expect(r.passed).toBe(r.total);
    }, 100_000);
  }
});
