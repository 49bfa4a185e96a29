/**
 * `mcpwire serve`: the host as one MCP server (a gateway) over stdio or Streamable HTTP.
 * docs/serve.md is the user's guide.
 */
import type { ConfigLoadResult, ResolvedServer } from '../host/index.js';
import { Gateway, type GatewayOptions } from './gateway.js';
import { ServerStdioTransport, type ServerStdioOptions } from './stdio-transport.js';

export { Gateway, type GatewayOptions } from './gateway.js';
export { GATEWAY_CAPABILITIES, GATEWAY_PROTOCOL_VERSION } from './session.js';
export { MODERN_VERSION } from './modern.js';
export { NAMING_MODES, NAME_SEPARATOR, isNamingMode, type NamingMode } from './names.js';
export { STATUS_TOOL, STATUS_URI } from './status.js';
export { ServerStdioTransport } from './stdio-transport.js';
export { serveHttp, type HttpGateway, type ServeHttpOptions } from './http.js';

/** Serves the gateway to one client over stdio; resolves when that client closes stdin (the gateway closed too). */
export async function serveStdio(config: ConfigLoadResult | readonly ResolvedServer[], options: GatewayOptions & ServerStdioOptions = {}): Promise<void> {
  const gateway = new Gateway(config, options);
  const transport = new ServerStdioTransport(options);
  await gateway.attach(transport);
  // The connection has set its close handler by now; stdin's end arrives on a later tick.
  await new Promise<void>((resolve) => {
    const theirs = transport.onclose;
    transport.onclose = (err) => {
      theirs?.(err);
      resolve();
    };
  });
  await gateway.close();
}
