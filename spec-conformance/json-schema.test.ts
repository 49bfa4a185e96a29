/**
 * basic (JSON Schema usage) from the client's side, against the scripted stdio mock server:
 * output schemas are validated in their declared or default dialect (basic#15, basic#16), with
 * `format` an annotation unless the client opts in (`assertFormats`), and schemas with the same
 * `$id` from two servers never interfere.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type McpClientDiagnostic } from '../src/index.js';
import { closeAll, removeMockDirs, connectMock, mock } from './support/mock.js';

afterEach(closeAll);
afterAll(removeMockDirs);

function diagnosticsOf(client: { on(e: 'diagnostic', f: (d: McpClientDiagnostic) => void): unknown }) {
  const list: McpClientDiagnostic[] = [];
  client.on('diagnostic', (d) => list.push(d));
  return list;
}

const cannedTool = (name: string, outputSchema: object, structuredContent: object) => ({
  name,
  inputSchema: { type: 'object' },
  outputSchema,
  result: { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent },
});

describe('basic: JSON Schema usage (client)', () => {
  const emailScenario = {
    tools: [cannedTool('contact', { type: 'object', properties: { email: { type: 'string', format: 'email' } } }, { email: 'not-an-email' })],
  };

  it('format is an annotation in 2020-12 (no $schema): callTool resolves by default (basic#15, basic#16)', async () => {
    const client = await connectMock(mock(emailScenario));
    const diags = diagnosticsOf(client);
    await client.listTools();
    const r = await client.callTool('contact');
    expect(r.structuredContent).toEqual({ email: 'not-an-email' });
    expect(diags.filter((d) => /OUTPUT_SCHEMA/.test(d.code ?? ''))).toEqual([]);
  });

  it('assertFormats: true makes the same call reject with ValidationError (basic#16)', async () => {
    const client = await connectMock(mock(emailScenario), { assertFormats: true });
    await client.listTools();
    const err = await client.callTool('contact').catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors.map((e) => e.path)).toEqual(['/email']);
  });

  it('two servers whose output schemas share an $id are both enforced (basic#16)', async () => {
    const $id = 'https://example.com/schemas/result.json';
    const a = await connectMock(mock({ tools: [cannedTool('count', { $id, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, { n: 1 })] }, 'a'));
    const b = await connectMock(mock({ tools: [cannedTool('name', { $id, type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }, { s: 5 })] }, 'b'));
    const diags = diagnosticsOf(b);
    await a.listTools();
    await b.listTools();
    expect((await a.callTool('count')).structuredContent).toEqual({ n: 1 });
    const err = await b.callTool('name').catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors.map((e) => e.path)).toEqual(['/s']);
    expect(diags.map((d) => d.code)).not.toContain('MCPWIRE_OUTPUT_SCHEMA_INVALID');
  });

  it('an unsupported dialect is reported, not silently validated (basic#17)', async () => {
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' };
    const client = await connectMock(mock({ tools: [cannedTool('old', schema, { a: 1 })] }));
    const diags = diagnosticsOf(client);
    await client.listTools();
    await client.callTool('old');
    expect(diags.find((d) => d.code === 'MCPWIRE_OUTPUT_SCHEMA_INVALID')?.message).toMatch(/unsupported JSON Schema dialect/);
  });
});
