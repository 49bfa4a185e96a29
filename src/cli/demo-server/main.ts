/**
 * Entry of the demo server as its own process (`node dist/cli/demo-server/main.js`): what
 * `mcpwire demo` spawns. `mcpwire demo --server` runs the same server.
 */
import { serveDemo } from './server.js';

process.stdout.on('error', () => process.exit(0)); // EPIPE: the client went away
await serveDemo(process.stdin, process.stdout);
process.exit(0);
