/**
 * One `mcpwire serve --http --config <config>` (the built CLI) that a test file's HTTP clients
 * share: started when its URL is first asked for, stopped after all the file's tests.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { cli, startUntil, stop } from './tap-helpers.js';

export interface SharedHttpGateway {
  /** The gateway's MCP endpoint (the gateway started on the first call). */
  url(): Promise<string>;
}

export function sharedHttpGateway(config: string): SharedHttpGateway {
  let started: Promise<{ child: ChildProcess; url: string }> | undefined;
  afterAll(async () => {
    const g = await started?.catch(() => undefined);
    if (g !== undefined) await stop(g.child);
  });
  return {
    url: async () => {
      started ??= startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (\S+)/, { MCPWIRE_TRACE: '' }).then((g) => ({ child: g.child, url: g.match[1]! }));
      return (await started).url;
    },
  };
}
