#!/usr/bin/env node
// Agent bridge (seed 002, Yoi style): MCP servers behind one tool registry of an agent.
//
// - The model sees namespaced, stable tool names (mcp_<server>_<tool>_<hash8>) plus four host
//   tools that turn resources and prompts into ordinary tool calls: what a resource or a prompt
//   says reaches the model only as a tool result, recorded in the history like any other —
//   never injected into the context behind the user's back.
// - Client features are fail closed: this host offers no sampling, elicitation or roots, so a
//   server asking for them is refused (-32601) and the host raises a `diagnostic` event naming
//   the server and the method.
// - A permission hook sits in front of every call; a denied call never reaches the server.
// - Task-required tools the server cannot run as tasks are never offered (host.unavailableTools()).
//
// Run: npm run build && node examples/agent-bridge.mjs
// (imports 'mcpwire/host' by the package's own name: Node resolves a package's self-reference
// through its "exports" map, so this file runs inside the repository exactly as in a project
// that installed mcpwire.)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from 'mcpwire/host';

const here = path.dirname(fileURLToPath(import.meta.url));
const mock = path.join(here, '..', 'mock-servers', 'stdio-server.mjs');

const host = createHost([], {
  // Yoi's PreToolCall permission: read-only work is fine, anything else is denied.
  permission: async ({ tool }) => (['echo', 'ask'].includes(tool) ? 'allow' : 'deny'),
});
host.on('diagnostic', (d) => {
  if (d.method !== undefined) console.log(`diagnostic: ${d.message}`);
});
await host.start();
// A local stdio server from explicit config only: the entry is the embedder's decision.
// (The mock plays a server with resources, prompts, a few tools and one task-only tool.)
const scenario = { extends: 'default', tools: ['echo', 'add', 'ask', { name: 'research', builtin: 'slow', execution: { taskSupport: 'required' } }] };
await host.addServer('docs', { command: process.execPath, args: [mock], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } });

const defs = host.toolDefinitions();
const byTool = (tool) => defs.find((d) => d.server === 'docs' && d.tool === tool)?.name;
console.log(`tools offered: ${defs.length} (host tools: ${defs.filter((d) => d.server === undefined).map((d) => d.name).join(', ')})`);
console.log(`stable name for docs/echo: ${byTool('echo')}`);

// What a model would ask for, turn by turn; each answer goes into the history as a tool result.
const history = [];
async function turn(name, args) {
  const result = await host.callTool(name, args);
  const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
  history.push({ role: 'tool', name, isError: result.isError === true, text });
  console.log(`${name.replace(/_[0-9a-f]{8}$/, '')} → ${result.isError ? 'error' : 'ok'}: ${oneLine(text)}`);
  return result;
}
const oneLine = (s) => s.replace(/\s+/g, ' ').slice(0, 160);

await turn('mcp_resources_list', { server: 'docs' });
await turn('mcp_resource_read', { server: 'docs', uri: 'mem://readme' });
await turn('mcp_prompt_get', { server: 'docs', name: 'greet', arguments: { name: 'Ada' } });
await turn(byTool('echo'), { text: 'hello through the bridge' });
// Denied by the permission hook: nothing is sent to the server.
await turn(byTool('add'), { a: 1, b: 2 });
// The server asks this host to sample an LLM: refused (fail closed), and a diagnostic says so.
await turn(byTool('ask'), { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } });
await turn(byTool('ask'), { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: {} } } });

console.log(`history: ${history.length} tool results, ${history.filter((h) => h.isError).length} errors`);
// A tool that must run as a task, on a server that does not take task-augmented calls: never
// offered to the model as a plain call; the host says why.
for (const u of host.unavailableTools()) console.log(`not offered: ${u.server}/${u.tool}: ${u.reason}`);
await host.close();
