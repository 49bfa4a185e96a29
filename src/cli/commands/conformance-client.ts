/**
 * `mcpwire conformance-client <url>`: the client under test for the official MCP conformance
 * suite (@modelcontextprotocol/conformance, see spec-conformance/runner/). The suite starts a
 * scenario server, runs this command with the server URL appended and the scenario name in
 * `MCP_CONFORMANCE_SCENARIO`, then judges what went over the wire. Exit 0 = the client did
 * its part without error.
 */
import { connect, createOAuthProvider, idJagAssertion, type ClientOptions, type McpClient, type OAuthProviderOptions } from '../../index.js';

type Scenario = (client: McpClient) => Promise<void>;

/** The well-behaved OAuth client of the suite's auth/* scenarios: connect, list tools, call one. */
const authClient: Scenario = async (client) => {
  await client.listTools();
  await client.callTool('test-tool', {});
};

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
  // SEP-2322 (2026-07-28): each tool drives one multi round-trip case (requestState echoed, none
  // sent back when none was given, an unrelated call carrying nothing, a result without resultType).
  'sep-2322-client-request-state': callEveryTool,
  // SEP-2243: the calls the scenario names (context.toolCalls), their x-mcp-header parameters
  // mirrored into Mcp-Param-* headers; tools/list first, which carries the annotations.
  'http-custom-headers': async (client) => {
    await client.listTools();
    for (const call of scenarioContext().toolCalls ?? []) await client.callTool(call.name, call.arguments ?? {});
  },
  // SEP-2243: tools with invalid x-mcp-header annotations are left out of the list; the valid
  // ones stay callable.
  'http-invalid-tool-headers': callEveryTool,
};

/** Lists the tools and calls each one the client kept, with a placeholder for each required argument. */
async function callEveryTool(client: McpClient): Promise<void> {
  for (const tool of await client.listTools()) {
    const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
    const args: Record<string, unknown> = {};
    for (const name of schema.required ?? []) args[name] = placeholder(schema.properties?.[name]?.type);
    await client.callTool(tool.name, args);
  }
}

function placeholder(type: unknown): unknown {
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'object') return {};
  if (type === 'array') return [];
  return 'x';
}

interface ScenarioContext {
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  [key: string]: unknown;
}

/** The scenario's MCP_CONFORMANCE_CONTEXT (JSON), `{}` when there is none. */
function scenarioContext(): ScenarioContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw === undefined || raw === '' ? {} : (JSON.parse(raw) as ScenarioContext);
}

/** The suite's fixed Client ID Metadata Document URL (used when the AS supports CIMD). */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';
/** Nothing listens here: the suite's AS auto-approves and we read the code off its redirect. */
const REDIRECT_URI = 'http://localhost:3000/callback';

/**
 * The headless "browser": GET the authorization URL without following the redirect and hand the
 * `Location` (our redirect URI with code/state/iss) back to the provider.
 */
async function headlessInteraction(authorizationUrl: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: 'manual', signal });
  await res.body?.cancel().catch(() => {});
  const location = res.headers.get('location');
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${res.status} without a redirect`);
  return new URL(location, authorizationUrl);
}

/** OAuth options from the scenario's MCP_CONFORMANCE_CONTEXT (pre-registered or client credentials). */
function oauthOptions(url: string, scenario: string): OAuthProviderOptions {
  const base: OAuthProviderOptions = {
    serverUrl: url,
    serverKey: 'conformance',
    redirectUri: REDIRECT_URI,
    interaction: headlessInteraction,
    clientMetadataUrl: CIMD_URL,
    // application_type is the library's default for this redirect (native: it is on localhost).
    clientMetadata: { client_name: 'mcpwire-conformance-client' },
  };
  // DPoP (RFC 9449, SEP-1932): the scenario's AS advertises it; the client opts in.
  if (scenario === 'auth/dpop' || scenario === 'auth/dpop-nonce') return { ...base, dpop: true };
  if (process.env.MCP_CONFORMANCE_CONTEXT === undefined || process.env.MCP_CONFORMANCE_CONTEXT === '') return base;
  const ctx = scenarioContext() as Record<string, string | undefined>;
  if (scenario === 'auth/client-credentials-jwt') {
    return { ...base, grantType: 'client_credentials', clientId: ctx.client_id, tokenEndpointAuthMethod: 'private_key_jwt', privateKeyJwt: { privateKey: ctx.private_key_pem ?? '', alg: ctx.signing_algorithm ?? 'ES256' } };
  }
  // SEP-990 under its current name (enterprise-managed-authorization) and its earlier one.
  if (scenario === 'auth/enterprise-managed-authorization' || scenario === 'auth/cross-app-access-complete-flow') {
    // SEP-990: ID token → ID-JAG at the IdP, then the jwt-bearer grant at the AS (client_secret_basic).
    return {
      ...base,
      grantType: 'jwt-bearer',
      clientId: ctx.client_id,
      clientSecret: ctx.client_secret,
      assertion: idJagAssertion({ idpTokenEndpoint: ctx.idp_token_endpoint ?? '', idpClientId: ctx.idp_client_id ?? '', idToken: ctx.idp_id_token ?? '' }),
    };
  }
  if (scenario === 'auth/client-credentials-basic') {
    return { ...base, grantType: 'client_credentials', clientId: ctx.client_id, clientSecret: ctx.client_secret };
  }
  if (scenario === 'auth/wif-jwt-bearer') {
    // Workload identity (SEP-1933): the platform-issued JWT is the RFC 7523 assertion; a public client.
    const jwt = ctx.valid_jwt ?? '';
    return { ...base, grantType: 'jwt-bearer', clientId: ctx.client_id, tokenEndpointAuthMethod: 'none', assertion: async () => jwt };
  }
  if (ctx.client_id !== undefined) return { ...base, clientId: ctx.client_id, ...(ctx.client_secret !== undefined ? { clientSecret: ctx.client_secret } : {}) };
  return base;
}

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
  const isAuth = scenario.startsWith('auth/');
  const run: Scenario =
    SCENARIOS[scenario] ??
    (isAuth ? authClient : undefined) ??
    (async (client) => {
      if (client.serverCapabilities?.tools !== undefined) await client.listTools();
    });
  // The revision whose wire the scenario server speaks (the suite's --spec-version or
  // --requirements): the client is pinned to it, as a configured `protocolVersion` pins it.
  const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  let client: McpClient | undefined;
  try {
    client = await connect(
      { transport: 'http', url, id: 'conformance' },
      {
        clientInfo: { name: 'mcpwire-conformance-client', version: '0.1.0' },
        onElicitation: acceptWithDefaults,
        timeoutMs: 20_000,
        ...(wire !== undefined && wire !== '' ? { protocolVersion: wire } : {}),
        ...(isAuth ? { authProvider: createOAuthProvider(oauthOptions(url, scenario)) } : {}),
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
