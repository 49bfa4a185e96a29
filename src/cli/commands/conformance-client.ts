/**
 * `mcpwire conformance-client <url>`: the client under test for the official MCP conformance
 * suite (@modelcontextprotocol/conformance, see spec-conformance/runner/). The suite starts a
 * scenario server, runs this command with the server URL appended and the scenario name in
 * `MCP_CONFORMANCE_SCENARIO`, then judges what went over the wire. Exit 0 = the client did
 * its part without error.
 */
import { connect, type ClientOptions, type McpClient } from '../../index.js';

type Scenario = (client: McpClient) => Promise<void>;

const SCENARIOS: Record<string, Scenario> = {
  // The scenario server declares no capabilities: connect (initialize + initialized) and close.
  initialize: async () => {},
  tools_call: async (client) => {
    await client.listTools();
    await client.callTool('add_numbers', { a: 5, b: 3 });
  },
  // SEP-1699: the server closes the tools/call stream after a priming event with `retry:`;
  // the transport must wait `retry` ms and resume with GET + Last-Event-ID.
  'sse-retry': async (client) => {
    await client.listTools();
    await client.callTool('test_reconnection', {});
  },
  'elicitation-sep1034-client-defaults': async (client) => {
    await client.listTools();
    await client.callTool('test_client_elicitation_defaults', {});
  },
};

/** Accepts every form elicitation with the schema's defaults (SEP-1034). */
const acceptWithDefaults: NonNullable<ClientOptions['onElicitation']> = async (params) => {
  const schema = (params as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } }).requestedSchema;
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.default !== undefined) content[key] = prop.default as string | number | boolean | string[];
  }
  return { action: 'accept', content };
};

export default async function conformanceClient(argv: string[]): Promise<number> {
  const url = argv.filter((a) => !a.startsWith('-')).at(-1);
  if (url === undefined) {
    process.stderr.write('usage: mcpwire conformance-client <server-url>  (scenario from MCP_CONFORMANCE_SCENARIO)\n');
    return 2;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
  const run: Scenario =
    SCENARIOS[scenario] ??
    (async (client) => {
      if (client.serverCapabilities?.tools !== undefined) await client.listTools();
    });
  let client: McpClient | undefined;
  try {
    client = await connect(
      { transport: 'http', url, id: 'conformance' },
      {
        clientInfo: { name: 'mcpwire-conformance-client', version: '0.1.0' },
        onElicitation: acceptWithDefaults,
        timeoutMs: 20_000,
      },
    );
    await run(client);
    return 0;
  } catch (err) {
    process.stderr.write(`conformance-client (${scenario}): ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await client?.close().catch(() => {});
  }
}
