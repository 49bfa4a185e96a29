// The 2026-07-28 side of the suite peer (suite-server.mjs): a server built on the official
// TypeScript SDK v2 (@modelcontextprotocol/server, a devDependency and test peer) offering what
// the official suite's 2026-07-28 server scenarios ask for — the same tools, resources, templates
// and prompts as the handshake side, and the multi round-trip tools and prompt the
// input-required-result scenarios name (their requirement texts: keys, messages, rounds, a
// requestState sealed with an HMAC), and `test_missing_capability` (server-stateless: a tool
// needing sampling refuses a request that did not declare it, -32021). Written here from those
// requirements.

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { McpServer, ResourceTemplate, completable, createMcpHandler, createRequestStateCodec, fromJsonSchema, inputRequired } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';

/**
 * The node handler of the 2026-07-28 side: (req, res, parsedBody).
 * `content` gives the handshake side's fixtures (PNG, WAV, resources, prompts), so both sides answer alike.
 */
export function modernHandler(f) {
  const codec = createRequestStateCodec({ key: randomBytes(32), bind: (ctx) => `${ctx.mcpReq.method}` });
  const factory = () => {
    const server = new McpServer(
      { name: 'mcpwire-suite-peer', version: '1.0.0' },
      { capabilities: { logging: {}, completions: {} }, requestState: { verify: codec.verify } },
    );
    const none = z.object({});
    const tool = (name, description, run, inputSchema = none) => server.registerTool(name, { description, inputSchema }, run);
    const text = (t) => ({ content: [{ type: 'text', text: t }] });
    const caps = (ctx) => ctx.mcpReq.envelope?.[CAPS] ?? {};
    const answers = (ctx) => ctx.mcpReq.inputResponses ?? {};

    // multi round-trip tools (input-required-result scenarios)
    const NAME = { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } };
    const CAPITAL = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 } };
    const ROOTS = { method: 'roots/list', params: {} };
    const CONFIRM = { method: 'elicitation/create', params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } };
    const GREETING = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } };
    const STEP1 = { method: 'elicitation/create', params: { message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } };
    const STEP2 = { method: 'elicitation/create', params: { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } };

    tool('test_simple_text', 'Answers one text block', async () => text('This is a simple text response for testing.'));
    tool('test_image_content', 'Answers a PNG image', async () => ({ content: [{ type: 'image', data: f.PNG, mimeType: 'image/png' }] }));
    tool('test_audio_content', 'Answers a WAV clip', async () => ({ content: [{ type: 'audio', data: f.WAV, mimeType: 'audio/wav' }] }));
    tool('test_embedded_resource', 'Answers an embedded text resource', async () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }));
    tool('test_multiple_content_types', 'Answers text, an image and a resource', async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: f.PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ],
    }));
    tool('test_tool_with_logging', 'Logs three info messages while it runs', async (_a, ctx) => {
      for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) await ctx.mcpReq.log('info', m, 'suite-peer').catch(() => {});
      return text('Logged three messages.');
    });
    tool('test_tool_with_progress', 'Reports progress 0, 50, 100 of 100', async (_a, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
      return text('Progress reported.');
    });
    tool('test_error_handling', 'Always fails (isError)', async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }));
    // server-stateless's probes: an elicitation asked as input_required on the request's stream; a log only at the request's logLevel
    tool('test_streaming_elicitation', 'Asks for a name (input_required, never a request of its own)', async (_a, ctx) => {
      if (answers(ctx).user_name === undefined) return inputRequired({ inputRequests: { user_name: NAME } });
      return text('Thanks.');
    });
    tool('test_logging_tool', 'Logs one info message (sent only when the request asked for a log level)', async (_a, ctx) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran', 'suite-peer').catch(() => {});
      return text('Logged.');
    });
    // needs sampling: asking a client that did not declare it is answered -32021 by the SDK (a tool's throw would be an isError result)
    tool('test_missing_capability', 'Needs the sampling client capability', async (_a, ctx) => {
      if (caps(ctx).sampling === undefined) return inputRequired({ inputRequests: { capital_question: CAPITAL } });
      return text('The client declared sampling.');
    });

    const sampled = (r) => (r?.content?.type === 'text' ? r.content.text : JSON.stringify(r?.content ?? null));
    const stateOf = (ctx) => ctx.mcpReq.requestState?.();

    tool('test_input_required_result_elicitation', 'Asks for a name (input_required)', async (_a, ctx) => {
      const r = answers(ctx).user_name;
      if (r === undefined) return inputRequired({ inputRequests: { user_name: NAME } });
      return text(`Hello, ${r.content?.name ?? 'stranger'}!`);
    });
    tool('test_input_required_result_sampling', 'Asks the client to sample (input_required)', async (_a, ctx) => {
      const r = answers(ctx).capital_question;
      if (r === undefined) return inputRequired({ inputRequests: { capital_question: CAPITAL } });
      return text(`The model said: ${sampled(r)}`);
    });
    tool('test_input_required_result_list_roots', 'Asks for the roots (input_required)', async (_a, ctx) => {
      const r = answers(ctx).client_roots;
      if (r === undefined || !Array.isArray(r.roots)) return inputRequired({ inputRequests: { client_roots: ROOTS } });
      return text(`Roots: ${r.roots.map((x) => x.uri).join(', ')}`);
    });
    tool('test_input_required_result_request_state', 'Asks with a requestState', async (_a, ctx) => {
      const r = answers(ctx).confirm;
      if (r === undefined) return inputRequired({ inputRequests: { confirm: CONFIRM }, requestState: await codec.mint({ round: 1 }, ctx) });
      return text(`state-ok: ${r.action}`);
    });
    tool('test_input_required_result_tampered_state', 'Asks with a requestState it verifies', async (_a, ctx) => {
      const r = answers(ctx).confirm;
      if (r === undefined) return inputRequired({ inputRequests: { confirm: CONFIRM }, requestState: await codec.mint({ round: 1 }, ctx) });
      return text(`state-ok: ${r.action}`);
    });
    tool('test_input_required_result_multiple_inputs', 'Asks for three inputs at once', async (_a, ctx) => {
      const a = answers(ctx);
      const missing = Object.entries({ user_name: NAME, greeting: GREETING, client_roots: ROOTS }).filter(([k]) => a[k] === undefined);
      if (missing.length > 0) return inputRequired({ inputRequests: Object.fromEntries(missing), requestState: await codec.mint({ round: 1 }, ctx) });
      return text(`Hello ${a.user_name.content?.name}; ${sampled(a.greeting)}; roots ${a.client_roots.roots?.length ?? 0}`);
    });
    tool('test_input_required_result_multi_round', 'Asks twice in a row', async (_a, ctx) => {
      const a = answers(ctx);
      const state = stateOf(ctx);
      if (state?.round === 2 && a.step2 !== undefined) return text(`Done: ${state.name ?? ''} likes ${a.step2.content?.color ?? ''}`);
      if (state?.round === 1 && a.step1 !== undefined) return inputRequired({ inputRequests: { step2: STEP2 }, requestState: await codec.mint({ round: 2, name: a.step1.content?.name }, ctx) });
      return inputRequired({ inputRequests: { step1: STEP1 }, requestState: await codec.mint({ round: 1 }, ctx) });
    });
    tool('test_input_required_result_capabilities', 'Asks only for what the client declared', async (_a, ctx) => {
      const c = caps(ctx);
      const a = answers(ctx);
      const asks = {};
      if (c.elicitation !== undefined && a.user_name === undefined) asks.user_name = NAME;
      if (c.sampling !== undefined && a.capital_question === undefined) asks.capital_question = CAPITAL;
      if (c.roots !== undefined && a.client_roots === undefined) asks.client_roots = ROOTS;
      if (Object.keys(asks).length > 0) return inputRequired({ inputRequests: asks });
      return text('Every declared capability answered.');
    });

    // http-custom-header-server-validation: a parameter mirrored into a header (x-mcp-header), checked by the SDK
    tool('test_header_region', 'Answers the region it was given (mirrored in Mcp-Param-Region)', async (a) => text(`Region: ${a.region ?? ''}`), fromJsonSchema({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] }));
    tool('json_schema_2020_12_tool', 'Takes arguments described in JSON Schema 2020-12', async (a) => text(`Received ${JSON.stringify(a)}`), fromJsonSchema(f.JSON_SCHEMA_2020_12));

    // resources, templates, prompts, completion (as the handshake side)
    server.registerResource(f.TEMPLATE.name, new ResourceTemplate(f.TEMPLATE.uriTemplate, { list: undefined }), { description: f.TEMPLATE.description, mimeType: f.TEMPLATE.mimeType }, async (uri) => ({ contents: [f.read(uri.href)] }));
    for (const r of f.RESOURCES) server.registerResource(r.name, r.uri, { description: r.description, mimeType: r.mimeType }, async (uri) => ({ contents: [f.read(uri.href)] }));
    server.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => f.prompt('test_simple_prompt', {}));
    const words = (value) => f.WORDS.filter((w) => w.startsWith(value ?? ''));
    server.registerPrompt('test_prompt_with_arguments', { description: 'A prompt with two arguments', argsSchema: z.object({ arg1: completable(z.string(), words), arg2: completable(z.string(), words) }) }, (a) => f.prompt('test_prompt_with_arguments', a));
    server.registerPrompt('test_prompt_with_embedded_resource', { description: 'A prompt embedding a resource', argsSchema: z.object({ resourceUri: z.string() }) }, (a) => f.prompt('test_prompt_with_embedded_resource', a));
    server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => f.prompt('test_prompt_with_image', {}));
    server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks for the user\'s context first' }, (ctx) => {
      const r = answers(ctx).user_context;
      if (r === undefined) return inputRequired({ inputRequests: { user_context: { method: 'elicitation/create', params: { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } } } } });
      return { messages: [{ role: 'user', content: { type: 'text', text: `Context: ${r.content?.context ?? ''}` } }] };
    });
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject', keepAliveMs: 0 });
  return { node: toNodeHandler(handler), close: () => handler.close() };
}
