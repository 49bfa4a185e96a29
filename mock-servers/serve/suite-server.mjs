#!/usr/bin/env node
// An MCP server over Streamable HTTP (sessions, 2025-11-25) built on the official TypeScript SDK
// (@modelcontextprotocol/sdk, a devDependency and test peer), offering what the official
// conformance suite's server scenarios ask of the server under test — the tools, resources,
// templates, prompts, completion, logging, subscriptions and Host checks their requirement texts
// name. Written here from those requirements; test/serve/serve-suite.test.ts runs the suite against it
// directly and through `mcpwire serve --http`.
//
//   node mock-servers/serve/suite-server.mjs [--port 0]   → prints "LISTEN http://127.0.0.1:<port>/mcp" on stderr

import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { modernHandler } from './suite-modern.mjs';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const port = Number(args.includes('--port') ? args[args.indexOf('--port') + 1] : '0');

/** A 1×1 PNG, built here (signature, IHDR, IDAT of one RGB pixel, IEND) with its CRCs. */
function tinyPng() {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  // zlib stream of the row [filter 0, r, g, b], stored (no compression)
  const row = Buffer.from([0, 0x20, 0x80, 0xc0]);
  let a = 1;
  let b = 0;
  for (const x of row) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  const idat = Buffer.concat([Buffer.from([0x78, 0x01, 0x01, row.length, 0, ~row.length & 0xff, 0xff]), row, adler]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]).toString('base64');
}

/** A WAV of 8 silent 8-bit mono samples at 8 kHz. */
function tinyWav() {
  const samples = Buffer.alloc(8, 0x80);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + samples.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(samples.length, 40);
  return Buffer.concat([h, samples]).toString('base64');
}

const PNG = tinyPng();
const WAV = tinyWav();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noArgs = { type: 'object', properties: {} };
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const WORDS = ['paris', 'park', 'party', 'red', 'green', 'blue'];

const TOOLS = [
  { name: 'test_simple_text', description: 'Answers one text block', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Answers a PNG image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Answers a WAV clip', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Answers an embedded text resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Answers text, an image and a resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three info messages while it runs', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails (isError)', inputSchema: noArgs },
  { name: 'test_sampling', description: 'Asks the client to sample', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  { name: 'test_elicitation', description: 'Asks the user for a name and an email', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicits with a default for every primitive type', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicits with each enum form', inputSchema: noArgs },
  { name: 'json_schema_2020_12_tool', description: 'Takes arguments described in JSON Schema 2020-12', inputSchema: JSON_SCHEMA_2020_12 },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A fixed text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A fixed PNG', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource one may subscribe to', mimeType: 'text/plain' },
];
const TEMPLATE = { uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data by id', mimeType: 'application/json' };

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', description: 'The URI to embed', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function sessionServer() {
  const server = new Server(
    { name: 'mcpwire-suite-peer', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} } },
  );
  let level = 'debug';
  const subscribed = new Set();
  const log = (extra, data) =>
    LEVELS.indexOf('info') >= LEVELS.indexOf(level) ? extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'suite-peer', data } }) : Promise.resolve();
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    level = req.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const a = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
          ],
        };
      case 'test_tool_with_logging':
        await log(extra, 'Tool execution started');
        await sleep(50);
        await log(extra, 'Tool processing data');
        await sleep(50);
        await log(extra, 'Tool execution completed');
        return text('Logged three messages.');
      case 'test_tool_with_progress': {
        const token = req.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          if (progress < 100) await sleep(50);
        }
        return text('Progress reported.');
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_sampling': {
        if (server.getClientCapabilities()?.sampling === undefined) return { isError: true, content: [{ type: 'text', text: 'The client does not offer sampling.' }] };
        const r = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(a.prompt ?? '') } }], maxTokens: 100 } }, CreateMessageResultSchema);
        return text(`LLM response: ${r.content?.type === 'text' ? r.content.text : JSON.stringify(r.content)}`);
      }
      case 'test_elicitation':
        return elicit(extra, String(a.message ?? ''), {
          type: 'object',
          properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
          required: ['username', 'email'],
        }, 'User response');
      case 'test_elicitation_sep1034_defaults':
        return elicit(extra, 'Please review these defaults', {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
        }, 'Elicitation completed');
      case 'test_elicitation_sep1330_enums':
        return elicit(extra, 'Please choose', {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
            legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
          },
        }, 'Elicitation completed');
      case 'json_schema_2020_12_tool':
        return text(`Received ${JSON.stringify(a)}`);
      default:
        throw new McpError(-32602, `Unknown tool: ${req.params.name}`);
    }
  });
  async function elicit(extra, message, requestedSchema, label) {
    if (server.getClientCapabilities()?.elicitation === undefined) return { isError: true, content: [{ type: 'text', text: 'The client does not offer elicitation.' }] };
    const r = await extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema } }, ElicitResultSchema);
    return text(`${label}: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
  }

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const contents = read(req.params.uri);
    if (contents !== undefined) return { contents: [contents] };
    throw new McpError(-32002, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscribed.add(req.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const messages = prompt(req.params.name, req.params.arguments ?? {});
    if (messages !== undefined) return messages;
    throw new McpError(-32602, `Unknown prompt: ${req.params.name}`);
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const values = WORDS.filter((w) => w.startsWith(String(req.params.argument?.value ?? '')));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** A resource's contents by URI (both sides). */
function read(uri) {
  if (uri === 'test://static-text') return { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
  if (uri === 'test://static-binary') return { uri, mimeType: 'image/png', blob: PNG };
  if (uri === 'test://watched-resource') return { uri, mimeType: 'text/plain', text: 'Watched resource content' };
  const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (m) return { uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) };
  return undefined;
}

/** A prompt's messages by name (both sides). */
function prompt(name, a) {
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
    case 'test_prompt_with_arguments':
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` } }] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          { role: 'user', content: { type: 'resource', resource: { uri: String(a.resourceUri ?? 'test://example-resource'), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      };
    case 'test_prompt_with_image':
      return {
        messages: [
          { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      };
    default:
      return undefined;
  }
}

// 2026-07-28 requests (no session, no initialize) go to the SDK v2 side (suite-modern.mjs)
const modern = modernHandler({ PNG, WAV, RESOURCES, TEMPLATE, JSON_SCHEMA_2020_12, WORDS, read, prompt });
const isModern = (req) =>
  req.headers['mcp-session-id'] === undefined &&
  req.method === 'POST' &&
  (req.body?.method === 'server/discover' || req.body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined || req.headers['mcp-protocol-version'] === '2026-07-28');

const transports = new Map();
const app = createMcpExpressApp();
app.all('/mcp', async (req, res) => {
  if (isModern(req)) return modern.node(req, res, req.body);
  const sid = req.headers['mcp-session-id'];
  let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
  if (transport === undefined) {
    if (typeof sid === 'string' || req.method !== 'POST' || req.body?.method !== 'initialize') {
      res.status(typeof sid === 'string' ? 404 : 400).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: typeof sid === 'string' ? 'Session not found' : 'Bad Request: no session' } });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
      onsessionclosed: (id) => transports.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await sessionServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});

const listener = app.listen(port, '127.0.0.1', () => {
  process.stderr.write(`LISTEN http://127.0.0.1:${listener.address().port}/mcp\n`);
});
const stop = () => listener.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
