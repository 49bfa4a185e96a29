/**
 * The harness of the tests that run the mock AS + protected MCP server (mock-servers/oauth-as.mjs)
 * on 127.0.0.1: its shapes, the headless browser (the mock auto-approves; the redirect's Location
 * carries the code), and mocks and clients closed after each test.
 */
import { afterEach } from 'vitest';
import { createOAuthProvider, type McpClient, type OAuthProviderOptions } from '../../src/index.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

/** One request the mock saw. */
export interface LogEntry {
  method: string;
  path: string;
  params: Record<string, string>;
  authorization?: string;
  json?: Record<string, unknown>;
  dpop?: string;
  dpopError?: string;
}

export interface Mock {
  url: string;
  base: string;
  log: LogEntry[];
  counters: Record<string, number>;
  expireAll(): void;
  close(): Promise<void>;
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** The headless browser: follows the authorization URL once and returns where it redirects. */
export async function follow(url: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', signal });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

/** The requests the mock saw on `path`. */
export const at = (m: Mock, path: string): LogEntry[] => m.log.filter((e) => e.path === path);

/** Mocks started and clients opened through it are closed after each test of the calling file. */
export function oauthMockHarness() {
  const mocks: Mock[] = [];
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    await Promise.all(mocks.splice(0).map((m) => m.close()));
  });
  return {
    clients,
    async mock(options: Record<string, unknown> = {}): Promise<Mock> {
      const m = (await startOAuthMock(options)) as Mock;
      mocks.push(m);
      return m;
    },
    provider(m: Mock, extra: Partial<OAuthProviderOptions> = {}) {
      return createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', redirectUri: REDIRECT, interaction: follow, ...extra });
    },
  };
}
