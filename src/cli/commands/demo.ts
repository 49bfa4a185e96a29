/**
 * `mcpwire demo` (what `npm start` runs): connects to the demo server that ships with mcpwire
 * (src/cli/demo-server) over stdio, lists its tools, calls one with progress, and prints a short
 * summary. `mcpwire demo --server` is that server itself, on stdin/stdout: a server to configure
 * (`mcpwire mcp add demo --command mcpwire --arg demo --arg=--server`) or to connect a program to.
 */
import { connect } from '../../index.js';
import { packageFile } from '../../util/package-files.js';
import { reportError, safeText } from '../output.js';
import { progressPrinter } from '../progress.js';

export default async function demo(argv: string[] = []): Promise<number> {
  if (argv.includes('--server')) {
    const { serveDemo } = await import('../demo-server/server.js');
    await serveDemo(process.stdin, process.stdout);
    return 0;
  }
  const server = packageFile('dist', 'cli', 'demo-server', 'main.js');
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const t0 = performance.now();
  try {
    const client = await connect(
      { transport: 'stdio', id: 'demo', command: process.execPath, args: [server] },
      { clientInfo: { name: 'mcpwire-demo', version: '0.1.0' }, timeoutMs: 10_000, closeOnExit: true },
    );
    try {
      out(`connected to ${safeText(client.serverInfo?.name)} ${safeText(client.serverInfo?.version)} over ${client.transportKind}, protocol ${client.protocolVersion} (${Math.round(performance.now() - t0)} ms)`);
      const tools = await client.listTools();
      out(`${tools.length} tools: ${tools.map((t) => safeText(t.name, 40)).join(', ')}`);
      const echo = await client.callTool('echo', { text: 'hello from mcpwire' });
      out(`echo → ${echo.content[0]?.type === 'text' ? safeText(echo.content[0].text) : '(no text)'}`);
      const progress = progressPrinter();
      let updates = 0;
      const t1 = performance.now();
      const r = await client.callTool('progress', { steps: 5, intervalMs: 40 }, {
        onProgress: (p) => {
          updates++;
          progress.onProgress(p);
        },
      });
      progress.done();
      out(`progress → ${r.content[0]?.type === 'text' ? safeText(r.content[0].text) : '(no text)'} (${updates} progress updates, ${Math.round(performance.now() - t1)} ms)`);
      out(`summary: ${tools.length} tools listed, 2 calls made, ${client.pendingCount} requests pending, closing cleanly`);
    } finally {
      await client.close();
    }
    return 0;
  } catch (err) {
    reportError(err);
    return 1;
  }
}
