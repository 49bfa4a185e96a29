/**
 * The mode of a tool call decided without waiting when it is plain (tool-calls.ts plainAtOnce):
 * the server's task problem is computed once per capabilities and revision, not per call, and
 * the decisions are those of tasks.ts toolCallMode.
 */
import { describe, expect, it } from 'vitest';
import { callTool, type ToolCallDeps } from '../../src/mcp/tool-calls.js';
import { ToolCatalog } from '../../src/mcp/tool-catalog.js';

function deps(tasksHas: { value: boolean }, caps: { current: object }) {
  const problems: string[] = [];
  const sent: string[] = [];
  const d = {
    serverId: 's',
    codec: {
      has: (f: string) => (f === 'tasks' ? tasksHas.value : false),
      get negotiated() {
        return { protocolVersion: '2025-11-25', capabilities: caps.current };
      },
      result: (_m: string, raw: unknown) => raw,
    },
    tasks: {
      toolsCallProblem: () => {
        problems.push('asked');
        return 'the server did not declare "tasks.requests.tools.call"';
      },
      callTool: () => Promise.reject(new Error('no task calls here')),
    },
    catalog: new ToolCatalog(),
    request: async (_m: string, params: Record<string, unknown>) => {
      sent.push(String(params.name));
      return { content: [] };
    },
    listTools: async () => false,
    validateStructuredContent: 'off',
    assertFormats: false,
    diagnostic: () => {},
  } as unknown as ToolCallDeps;
  return { d, problems, sent };
}

describe('tool call mode', () => {
  it('an unknown tool on a server without task-augmented calls is plain; the problem is computed once per capabilities', async () => {
    const tasksHas = { value: true };
    const caps: { current: object } = { current: { tools: {} } };
    const { d, problems, sent } = deps(tasksHas, caps);
    for (let i = 0; i < 5; i++) await callTool(d, 'echo', {}, {});
    expect(sent).toEqual(['echo', 'echo', 'echo', 'echo', 'echo']);
    expect(problems).toHaveLength(1);
    caps.current = { tools: {}, logging: {} }; // a new negotiation: asked again
    await callTool(d, 'echo', {}, {});
    expect(problems).toHaveLength(2);
    tasksHas.value = false; // another revision: asked again
    await callTool(d, 'echo', {}, { task: 'auto' });
    expect(problems).toHaveLength(3);
  });

  it('a known tool that requires tasks is never called plain', async () => {
    const { d, sent } = deps({ value: true }, { current: { tools: {} } });
    d.catalog.page([{ name: 'slow', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }], true);
    await expect(callTool(d, 'slow', {}, {})).rejects.toThrow(/requires task execution/);
    await callTool(d, 'echo', {}, {});
    expect(sent).toEqual(['echo']);
  });
});
