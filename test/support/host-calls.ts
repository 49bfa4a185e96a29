/**
 * Helpers of the host-calls tests: a host over one real stdio mock server process
 * (mock-servers/stdio-server.mjs) with a scenario and per-server config.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'vitest';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { createHost, publicToolName, type HostOptions, type McpHost, type ResolvedServer } from '../../src/host/index.js';

export const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
export const MOCK = path.join(ROOT, 'mock-servers', 'stdio-server.mjs');

/** A resolved stdio server running the mock with `scenario`; `config` overrides normalized fields. */
export function mockServer(id: string, scenario: unknown, config: Partial<ResolvedServer['config']> = {}, env: Record<string, string> = {}): ResolvedServer {
  return {
    id,
    source: 'project',
    file: '/p/.mcpwire/config.json',
    enabled: true,
    transport: 'stdio',
    config: { ...emptyNormalizedConfig(), command: process.execPath, args: [MOCK], ...config, env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario), ...env } },
  };
}

/** A resolved Streamable HTTP server at `url`; `config` overrides normalized fields. */
export function httpServer(id: string, url: string, config: Partial<ResolvedServer['config']> = {}): ResolvedServer {
  return { id, source: 'global', file: '/g/config.json', enabled: true, transport: 'http', config: { ...emptyNormalizedConfig(), url, ...config } };
}

/** Starts a host over `servers` (permission: allow); the caller closes it. A host that did not get ready is closed here. */
export async function startHost(servers: ResolvedServer[], options: HostOptions = {}): Promise<McpHost> {
  const host = createHost(servers, { permission: 'allow', ...options });
  try {
    await host.start();
    for (const s of servers) {
      const st = host.serverStatus(s.id);
      if (st?.state !== 'ready') throw new Error(`mock server ${s.id} is ${st?.state}: ${st?.lastError}`);
    }
  } catch (err) {
    await host.close();
    throw err;
  }
  return host;
}

/**
 * A host of the running test's own (startHost), closed when that test ends: tests that run at
 * once share no host, so none closes another's.
 */
export async function ownHost({ onTestFinished }: TestContext, servers: ResolvedServer[], options?: HostOptions): Promise<McpHost> {
  const host = await startHost(servers, options);
  onTestFinished(() => host.close());
  return host;
}

/** The public name of `tool` on server `id`. */
export const toolName = (id: string, tool: string): string => publicToolName(id, tool);

/** The first text block of a result. */
export const textOf = (r: { content: unknown[] }): string => String((r.content[0] as { text?: unknown })?.text ?? '');
