// The real-server catalog of the tool-search bench: the MCP servers installed in this repository's
// node_modules, started through mcpwire's host, their tools read once. Chrome DevTools MCP lists
// its tools without launching a browser; it is started so that it calls no outside host (no usage
// statistics, no CrUX lookups, no update check) and none of its tools is ever called here.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const nm = (p) => path.join(root, 'node_modules', p);

/** Server id → native config entry (the ids the eval set's labels use). */
export const REAL_SERVERS = {
  everything: { command: process.execPath, args: [nm('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
  files: { command: process.execPath, args: [nm('@modelcontextprotocol/server-filesystem/dist/index.js'), os.tmpdir()] },
  memory: { command: process.execPath, args: [nm('@modelcontextprotocol/server-memory/dist/index.js')], env: { MEMORY_FILE_PATH: path.join(os.tmpdir(), 'mcpwire-bench-memory.jsonl') } },
  thinking: { command: process.execPath, args: [nm('@modelcontextprotocol/server-sequential-thinking/dist/index.js')] },
  browser: { command: process.execPath, args: [nm('@playwright/mcp/cli.js'), '--headless', '--isolated'] },
  devtools: {
    command: process.execPath,
    args: [nm('chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--headless', '--isolated', '--no-usage-statistics', '--no-performance-crux'],
    // it would otherwise spawn a daily update check against the npm registry, and send usage statistics
    env: { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1', CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1' },
  },
  demo: { command: process.execPath, args: [path.join(root, 'dist/cli/main.js'), 'demo', '--server'] },
};

/**
 * Starts the servers, waits for each to be ready, and returns the host's catalog view: the adapted
 * tools, the reverse lookup, and the definitions the model would get with and without search.
 */
export async function realCatalog(hostApi, servers = REAL_SERVERS) {
  const host = hostApi.createHost(await hostApi.loadConfig({ globalPath: writeConfig(servers) }), { permission: 'allow' });
  try {
    await host.start();
    const notReady = host.status().filter((s) => s.state !== 'ready');
    if (notReady.length > 0) throw new Error(`servers not ready: ${notReady.map((s) => `${s.id} (${s.state}: ${s.lastError ?? ''})`).join(', ')}`);
    return {
      catalog: host.catalog,
      all: host.toolDefinitions(),
      search: host.toolDefinitions({ toolSearch: true }),
      titles: Object.fromEntries(host.status({ detail: true }).map((s) => [s.id, s.serverInfo?.title ?? s.serverInfo?.name])),
    };
  } finally {
    await host.close();
  }
}

import fs from 'node:fs';
function writeConfig(servers) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-bench-search-')), 'config.json');
  fs.writeFileSync(file, JSON.stringify({ version: 1, mcp: { servers } }));
  return file;
}
