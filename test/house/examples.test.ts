/**
 * Every file in examples/ runs as a user would run it — `node examples/<file>`,
 * importing 'mcpwire/host' by the package's own name (Node's package self-reference through the
 * "exports" map of package.json, so the built dist/ is what runs) — against the bundled scripted
 * mock and @modelcontextprotocol/server-everything. Needs dist/ (`npm test` builds it first;
 * alone: `npx tsc -p tsconfig.build.json && node scripts/postbuild.mjs`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');

function runExample(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, 'examples', file)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCPWIRE_TRACE: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

// each example is a process of its own with its own servers and temporary folders: they run at
// once, their waits (long-job's 3 s job and timeouts, the flaky server's reconnect) overlapping
describe.concurrent('examples/', { timeout: 90_000 }, () => {
  it('every example has a test here', ({ expect }) => {
    const files = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.mjs')).sort();
    expect(files).toEqual(['agent-bridge.mjs', 'long-job.mjs', 'parallel-manager.mjs']);
  });

  it("the examples import 'mcpwire/host' by the package name, never a relative path into src/ or dist/", ({ expect }) => {
    for (const f of ['agent-bridge.mjs', 'long-job.mjs', 'parallel-manager.mjs']) {
      const text = fs.readFileSync(path.join(root, 'examples', f), 'utf8');
      expect(text).toMatch(/from 'mcpwire\/host'/);
      expect(text).not.toMatch(/from '\.\.?\/(?:\.\.\/)*(?:src|dist)\//);
    }
  });

  it('agent-bridge — resources and prompts as tool results, permission denial, fail-closed sampling/elicitation with diagnostics', async ({ expect }) => {
    const r = await runExample('agent-bridge.mjs');
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^tools offered: \d+ \(host tools: mcp_resources_list, mcp_resource_read, mcp_prompts_list, mcp_prompt_get(?:, \w+)*\)$/m);
    expect(out).toMatch(/^stable name for docs\/echo: mcp_docs_echo_[0-9a-f]{8}$/m);
    expect(out).toMatch(/^mcp_resources_list → ok: .*mem:\/\/readme/m);
    expect(out).toMatch(/^mcp_resource_read → ok: .*Hello from the mock server\./m);
    expect(out).toMatch(/^mcp_prompt_get → ok: .*Ada/m);
    expect(out).toMatch(/^mcp_docs_echo → ok: hello through the bridge$/m);
    expect(out).toMatch(/^mcp_docs_add → error: permission denied for MCP tool docs\/add/m);
    expect(out).toMatch(/^diagnostic: server "docs" sent sampling\/createMessage, but this host does not handle sampling: refused \(-32601\)$/m);
    expect(out).toMatch(/^diagnostic: server "docs" sent elicitation\/create, but this host does not handle elicitation: refused \(-32601\)$/m);
    expect(out.match(/^mcp_docs_ask → error: .*-32601/gm)).toHaveLength(2);
    expect(out).toMatch(/^history: 7 tool results, 3 errors$/m);
    expect(out).toMatch(/^not offered: docs\/research: requires task execution \(execution\.taskSupport "required"\), but .*tasks\.requests\.tools\.call.*; not offered$/m);
    expect(out).not.toMatch(/mcp_docs_research/);
  });

  it('parallel-manager — parallel calls across two servers, the crashing one retried after reconnect, max_parallel held on the server side', async ({ expect }) => {
    const r = await runExample('parallel-manager.mjs');
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^everything: ready, \d+ tools/m);
    expect(out).toMatch(/^flaky: ready, 3 tools/m);
    expect(out).toMatch(/^everything: 8\/8 ok, 0 retried$/m);
    expect(out).toMatch(/^flaky: 4\/4 ok, [1-4] retried$/m);
    expect(out).toMatch(/^sums: 100 101 102 103 104 105 106 107$/m);
    expect(out).toMatch(/^flaky went: connecting → ready → error → (?:.* → )?ready$/m);
    const max = Number(out.match(/^flaky saw at most (\d+) calls in flight$/m)?.[1]);
    expect(max).toBeGreaterThanOrEqual(1);
    expect(max).toBeLessThanOrEqual(2);
  });

  it('long-job — a 3 s job times out under a plain 1.5 s timeout and finishes when progress restarts it; a cancelled run ends as a cancellation', async ({ expect }) => {
    const r = await runExample('long-job.mjs');
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^jobs: ready; job tool: found$/m);
    expect(out).toMatch(/^run 0: error \(timeout\) without resetTimeoutOnProgress$/m);
    expect(out).toMatch(/^run 1: ok.*: Long running operation completed\. Duration: 3 seconds, Steps: 6\.$/m);
    const run1 = out.slice(out.indexOf('run 0:'), out.indexOf('run 1:'));
    expect(run1.match(/^progress \d\/6$/gm)?.length).toBeGreaterThanOrEqual(5);
    expect(out).toMatch(/^run 2: error.* after 2 progress notifications$/m);
    expect(out).toMatch(/^jobs still ready$/m);
  });
});
