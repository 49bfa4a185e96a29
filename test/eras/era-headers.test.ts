/**
 * The request metadata headers of revision 2026-07-28 (src/mcp/eras/http-headers.ts, pure):
 * Mcp-Method, Mcp-Name, MCP-Protocol-Version mirrored from `_meta`, Mcp-Param-* from a tool's
 * `x-mcp-header` annotations, the Base64 sentinel encoding, and the validator of the annotations.
 * Titles cite the clauses of clauses-2026-07-28.md that bind clients (or both sides).
 */
import { describe, expect, test } from 'vitest';
import { encodeHeaderValue, headerAnnotationProblems, headerParams, paramValueText, requestHeaders, screenTools } from '../../src/mcp/eras/http-headers.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'ExampleClient', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The spec's example tool (basic/transports/streamable-http.md, "Schema Extension"). */
const EXECUTE_SQL_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'The region to execute the query in', 'x-mcp-header': 'Region' },
    query: { type: 'string', description: 'The SQL query to execute' },
  },
  required: ['region', 'query'],
};

describe('standard request headers', () => {
  test('basic.transports.streamable_http#9/#28/#50: a tools/call carries Mcp-Method and Mcp-Name from the body (the spec example)', () => {
    const h = requestHeaders('tools/call', { name: 'execute_sql', arguments: { region: 'us-west1', query: 'SELECT * FROM users' }, _meta: META }, EXECUTE_SQL_SCHEMA);
    expect(h).toEqual({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'execute_sql', 'Mcp-Param-Region': 'us-west1' });
  });

  test('basic.transports.streamable_http#28: Mcp-Name is params.uri for resources/read and params.name for prompts/get; other requests carry Mcp-Method only', () => {
    expect(requestHeaders('resources/read', { uri: 'file:///projects/myapp/config.json', _meta: META })).toMatchObject({
      'Mcp-Method': 'resources/read',
      'Mcp-Name': 'file:///projects/myapp/config.json',
    });
    expect(requestHeaders('prompts/get', { name: 'greet', arguments: {}, _meta: META })['Mcp-Name']).toBe('greet');
    const list = requestHeaders('tools/list', { name: 'not-a-name-source', _meta: META });
    expect(list).toEqual({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' });
  });

  test('basic.transports.streamable_http#22/#23: MCP-Protocol-Version is the `_meta` protocolVersion itself (absent when the body has none)', () => {
    const h = requestHeaders('server/discover', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
    expect(h['MCP-Protocol-Version']).toBe('2099-01-01');
    expect(requestHeaders('server/discover', undefined)).toEqual({ 'Mcp-Method': 'server/discover' });
  });

  test('basic.transports.streamable_http#29: an Mcp-Name that is not header-safe goes in the Base64 sentinel form', () => {
    expect(requestHeaders('tools/call', { name: 'wetter_für_köln', arguments: {} })['Mcp-Name']).toBe(`=?base64?${Buffer.from('wetter_für_köln').toString('base64')}?=`);
    expect(requestHeaders('resources/read', { uri: 'file:///a b.txt' })['Mcp-Name']).toBe('file:///a b.txt');
  });
});

describe('value encoding', () => {
  test('basic.transports.streamable_http#43/#44/#46/#49: the spec’s encoding examples, markers lowercase', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  test('basic.transports.streamable_http#44: control characters (CR, tab, DEL) and a single trailing space are encoded; inner spaces are not', () => {
    for (const v of ['a\rb', 'a\tb', 'a\u007fb', 'trailing ', ' leading']) expect(encodeHeaderValue(v)).toBe(`=?base64?${Buffer.from(v).toString('base64')}?=`);
    expect(encodeHeaderValue('SELECT * FROM t')).toBe('SELECT * FROM t');
  });

  test('basic.transports.streamable_http#49: only a value that both starts and ends like the sentinel is encoded for that reason', () => {
    expect(encodeHeaderValue('=?base64?abc')).toBe('=?base64?abc');
    expect(encodeHeaderValue('abc?=')).toBe('abc?=');
  });

  test('type conversion: string as is, integer in decimal, boolean lowercase; a fraction or an unsafe integer has no header form (basic.transports.streamable_http#36/#37, server.tools#24)', () => {
    expect(paramValueText('x')).toBe('x');
    expect(paramValueText(42)).toBe('42');
    expect(paramValueText(-7)).toBe('-7');
    expect(paramValueText(true)).toBe('true');
    expect(paramValueText(false)).toBe('false');
    expect(paramValueText(1.5)).toBeUndefined();
    expect(paramValueText(2 ** 53)).toBeUndefined();
    expect(paramValueText({ a: 1 })).toBeUndefined();
  });
});

describe('Mcp-Param-{Name} from x-mcp-header', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      tenant: { type: 'object', properties: { id: { type: 'integer', 'x-mcp-header': 'Tenant' } } },
      dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
      note: { type: ['string', 'null'], 'x-mcp-header': 'Note' },
    },
  };

  test('basic.transports.streamable_http#31/#50/#56: each annotated value is mirrored, nested ones by their exact property path, converted and encoded', () => {
    const h = requestHeaders('tools/call', { name: 't', arguments: { region: 'Zürich', tenant: { id: 42 }, dryRun: false, note: 'x' } }, schema);
    expect(h).toMatchObject({ 'Mcp-Param-Region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`, 'Mcp-Param-Tenant': '42', 'Mcp-Param-Dry-Run': 'false', 'Mcp-Param-Note': 'x' });
  });

  test('basic.transports.streamable_http#57/#58: a null value or a parameter not in the arguments gives no header', () => {
    const h = requestHeaders('tools/call', { name: 't', arguments: { note: null, tenant: {} } }, schema);
    expect(Object.keys(h).filter((k) => k.startsWith('Mcp-Param-'))).toEqual([]);
    expect(Object.keys(requestHeaders('tools/call', { name: 't' }, schema)).filter((k) => k.startsWith('Mcp-Param-'))).toEqual([]);
  });

  test('a value at another path than the annotated one is not mirrored (an inherited or array-held value neither)', () => {
    const h = requestHeaders('tools/call', { name: 't', arguments: { id: 1, tenant: [{ id: 2 }], region: Object.create({ x: 1 }) } }, schema);
    expect(Object.keys(h).filter((k) => k.startsWith('Mcp-Param-'))).toEqual([]);
  });

  test('only tools/call mirrors parameters', () => {
    expect(requestHeaders('prompts/get', { name: 'p', arguments: { region: 'eu' } }, schema)['Mcp-Param-Region']).toBeUndefined();
  });

  test('headerParams lists the valid annotations with their paths, memoized per schema object', () => {
    const first = headerParams(schema);
    expect(first).toEqual([
      { name: 'Region', path: ['region'] },
      { name: 'Tenant', path: ['tenant', 'id'] },
      { name: 'Dry-Run', path: ['dryRun'] },
      { name: 'Note', path: ['note'] },
    ]);
    expect(headerParams(schema)).toBe(first);
  });
});

describe('the x-mcp-header validator (a tool with problems is dropped from tools/list)', () => {
  const withProp = (prop: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: { p: prop, ...extra } });
  const messages = (schema: unknown) => headerAnnotationProblems(schema).map((p) => p.message);

  test('basic.transports.streamable_http#40: a valid schema (the spec example, no annotations, nested) has no problems', () => {
    expect(headerAnnotationProblems(EXECUTE_SQL_SCHEMA)).toEqual([]);
    expect(headerAnnotationProblems({ type: 'object' })).toEqual([]);
    expect(headerAnnotationProblems(withProp({ type: 'object', properties: { q: { type: 'integer', 'x-mcp-header': 'Q' } } }))).toEqual([]);
  });

  test('basic.transports.streamable_http#32, server.tools#19: an empty value is a problem', () => {
    expect(messages(withProp({ type: 'string', 'x-mcp-header': '' }))).toEqual([expect.stringContaining('#32')]);
  });

  test('basic.transports.streamable_http#33, server.tools#20: a value that is not an RFC 9110 token (space, colon, non-ASCII, not a string) is a problem', () => {
    for (const bad of ['Has Space', 'A:B', 'Région', 'a/b', 7]) {
      expect(messages(withProp({ type: 'string', 'x-mcp-header': bad }))).toEqual([expect.stringContaining('#33')]);
    }
    expect(messages(withProp({ type: 'string', 'x-mcp-header': "!#$%&'*+-.^_`|~09AZaz" }))).toEqual([]);
  });

  test('basic.transports.streamable_http#34, server.tools#21: CR or LF in the value is a problem', () => {
    expect(messages(withProp({ type: 'string', 'x-mcp-header': 'A\r\nX-Injected: 1' }))).toEqual([expect.stringContaining('#34')]);
  });

  test('basic.transports.streamable_http#35/#60, server.tools#22: values must be unique ignoring case', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } };
    const problems = headerAnnotationProblems(schema);
    expect(problems).toEqual([{ pointer: '/properties/b', message: expect.stringContaining('#35') }]);
  });

  test('basic.transports.streamable_http#36, server.tools#23: only integer, string or boolean parameters (number, object, array, no type are problems)', () => {
    for (const type of ['number', 'object', 'array', undefined, ['string', 'integer']]) {
      expect(messages(withProp({ type, 'x-mcp-header': 'P' }))).toEqual([expect.stringContaining('#36')]);
    }
    for (const type of ['string', 'integer', 'boolean', ['integer', 'null']]) expect(messages(withProp({ type, 'x-mcp-header': 'P' }))).toEqual([]);
  });

  test('basic.transports.streamable_http#38/#39, server.tools#25: an annotation under items, a composition, a conditional, $defs or at the root is a problem', () => {
    const unreachable = [
      withProp({ type: 'array', items: { type: 'string', 'x-mcp-header': 'P' } }),
      withProp({ oneOf: [{ type: 'string', 'x-mcp-header': 'P' }] }),
      withProp({ anyOf: [{ type: 'string', 'x-mcp-header': 'P' }] }),
      withProp({ allOf: [{ type: 'string', 'x-mcp-header': 'P' }] }),
      withProp({ not: { type: 'string', 'x-mcp-header': 'P' } }),
      withProp({ if: { type: 'string' }, then: { type: 'string', 'x-mcp-header': 'P' } }),
      { type: 'object', $defs: { d: { type: 'string', 'x-mcp-header': 'P' } }, properties: { p: { $ref: '#/$defs/d' } } },
      { type: 'string', 'x-mcp-header': 'P' },
    ];
    for (const schema of unreachable) {
      expect(messages(schema)).toEqual([expect.stringContaining('#38, #39')]);
      expect(headerParams(schema)).toEqual([]);
    }
  });

  test('a property named x-mcp-header, or the key inside a default or enum value, is not an annotation', () => {
    expect(headerAnnotationProblems({ type: 'object', properties: { 'x-mcp-header': { type: 'string' } } })).toEqual([]);
    expect(headerAnnotationProblems(withProp({ type: 'object', default: { 'x-mcp-header': '' }, enum: [{ 'x-mcp-header': 1 }] }))).toEqual([]);
  });

  test('each problem names where it is (JSON Pointer)', () => {
    const problems = headerAnnotationProblems({ type: 'object', properties: { 'a/b': { type: 'object', properties: { c: { type: 'number', 'x-mcp-header': 'C' } } } } });
    expect(problems).toEqual([{ pointer: '/properties/a~1b/properties/c', message: expect.stringContaining('"number"') }]);
  });
});

describe('screening a tools/list page', () => {
  test('basic.transports.streamable_http#40/#41/#42, server.tools#26/#27: a tool with an invalid annotation is left out with its name and reasons; the others are kept in order', () => {
    const tools = [
      { name: 'execute_sql', inputSchema: EXECUTE_SQL_SCHEMA },
      { name: 'bad', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
      { name: 'plain', inputSchema: { type: 'object' } },
    ];
    const { kept, rejected } = screenTools(tools);
    expect(kept.map((t) => t.name)).toEqual(['execute_sql', 'plain']);
    expect(rejected).toEqual([{ name: 'bad', problems: [{ pointer: '/properties/n', message: expect.stringContaining('#36') }] }]);
  });
});
