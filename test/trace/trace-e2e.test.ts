/**
 * Tracing end to end through real clients: stdio and Streamable HTTP sessions with known
 * secrets (env values, header values, a bearer token, a token a server echoes back) produce a
 * trace that holds every message and none of the secrets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { mock, removeMockDirs } from '../../spec-conformance/support/mock.js';
import { connect } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-trace-e2e-')();
afterAll(removeMockDirs);
const SECRETS = {
  env: 'env-secret-7f3a9c1e',
  header: 'Bearer hdr-secret-2b8d4e6f',
  apiKey: 'apikey-secret-91c2d3e4',
};
let http: { url: string; close(): Promise<void> } | undefined;
afterAll(async () => {
  await http?.close();
});

function assertNoSecrets(file: string) {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.length).toBeGreaterThan(0);
  for (const s of [SECRETS.env, 'hdr-secret-2b8d4e6f', SECRETS.apiKey]) expect(text).not.toContain(s);
  return text;
}

describe('trace end to end', () => {
  it('stdio: every message traced with direction, kind, method, latency; env secrets redacted even when echoed back', async () => {
    const file = path.join(dir, 'stdio.jsonl');
    const m = mock();
    m.config.env = { ...m.config.env, SERVICE_TOKEN: SECRETS.env };
    const client = await connect(m.config, { trace: file });
    await client.listTools();
    // The server echoes the secret back: it must not reach the trace in either direction.
    const r = await client.callTool('echo', { text: `the token is ${SECRETS.env}` });
    expect((r.content[0] as { text: string }).text).toContain(SECRETS.env);
    await client.close();
    assertNoSecrets(file);
    const trace = parseTrace(fs.readFileSync(file, 'utf8'));
    const messages = trace.records.filter((x: any) => x.dir);
    const kinds = messages.map((x: any) => `${x.dir}:${x.kind}:${x.method ?? ''}`);
    expect(kinds).toContain('out:request:initialize');
    expect(kinds).toContain('in:result:initialize');
    expect(kinds).toContain('out:notification:notifications/initialized');
    expect(kinds).toContain('out:request:tools/call');
    const result = messages.find((x: any) => x.dir === 'in' && x.method === 'tools/call') as any;
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
    expect(result.bytes).toBeGreaterThan(0);
    expect(trace.records.some((x: any) => x.event === 'lifecycle')).toBe(true);
    expect(trace.records.some((x: any) => x.event === 'transport' && x.type === 'spawn')).toBe(true);
  });

  it('HTTP: header values (Authorization, API keys) are redacted, the session id is recorded', async () => {
    http = await startHttpMock({ mode: 'sse' });
    const file = path.join(dir, 'http.jsonl');
    const client = await connect(
      { transport: 'http', id: 'http-secrets', url: http!.url, headers: { Authorization: SECRETS.header, 'X-Api-Key': SECRETS.apiKey } },
      { trace: { file, strict: true } },
    );
    await client.callTool('echo', { text: `key=${SECRETS.apiKey}` });
    await client.close();
    const text = assertNoSecrets(file);
    expect(text).toContain('"session"');
    expect(text).toContain('[redacted]');
  });

  it('MCPWIRE_TRACE turns tracing on without code changes; trace: false turns it off', async () => {
    const file = path.join(dir, 'env.jsonl');
    process.env.MCPWIRE_TRACE = file;
    try {
      const c1 = await connect(mock().config);
      await c1.close();
      expect(fs.existsSync(file)).toBe(true);
      const size = fs.statSync(file).size;
      const c2 = await connect(mock().config, { trace: false });
      await c2.close();
      expect(fs.statSync(file).size).toBe(size);
    } finally {
      delete process.env.MCPWIRE_TRACE;
    }
  });
});
