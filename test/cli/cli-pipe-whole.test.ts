/**
 * Into a pipe or a file the CLI's tables and listings are whole (docs/cli.md, "Mistakes, help
 * and pipes"): no cell is cut to a length cap, since there is no terminal width to fit. With a
 * width (`MCPWIRE_COLUMNS`, as a terminal gives) long cells still end with `…`. The built CLI
 * (its stdout is a pipe here) against the mock server. Needs `dist/`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, mockJs, node, run, sandbox, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

const LONG = `A resource described at length: ${'every word of it matters to the reader '.repeat(12)}END`;
const URL = `http://127.0.0.1:9/${'a-very-long-path-segment/'.repeat(6)}mcp`;

describe('tables into a pipe are not cut', { timeout: 120_000 }, () => {
  it('resources, tools and mcp list print long cells whole; with MCPWIRE_COLUMNS they are fitted', async () => {
    const sb = sandbox();
    const scenario = {
      tools: [{ name: 'wordy', description: LONG, inputSchema: { type: 'object', properties: {} }, result: { content: [] } }],
      resources: [{ uri: `mem://${'deep/'.repeat(70)}leaf`, name: 'leaf', mimeType: 'text/plain', description: LONG, text: 'x' }],
    };
    writeJson(sb.projectFile, {
      version: 1,
      mcp: { servers: { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } }, remote: { transport: 'http', url: URL, enabled: false } } },
    });
    expect(LONG.length).toBeGreaterThan(300);

    const resources = await run(sb, ['resources', 'm']);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout).toContain(LONG);
    expect(resources.stdout).toContain(scenario.resources[0].uri);
    expect(resources.stdout).not.toContain('…');

    const tools = await run(sb, ['tools', 'm']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain(LONG);

    const list = await run(sb, ['mcp', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(URL);

    const fitted = await run(sb, ['resources', 'm'], { env: { MCPWIRE_COLUMNS: '100' } });
    expect(fitted.code, fitted.stderr).toBe(0);
    expect(fitted.stdout).not.toContain(LONG);
    expect(fitted.stdout).toContain('…');
    for (const line of fitted.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});
