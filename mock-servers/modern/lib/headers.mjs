// Streamable HTTP request metadata for 2026-07-28 (basic/transports/streamable-http.md,
// "Request Metadata"): MCP-Protocol-Version, Mcp-Method, Mcp-Name and the Mcp-Param-{Name}
// headers a tool's inputSchema designates with `x-mcp-header`. The server side of it: decode the
// Base64 sentinel form, and reject (HeaderMismatch, -32020) what disagrees with the body.

import { RpcError, isObject } from '../../lib/rpc.mjs';

export const HEADER_MISMATCH = -32020;
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;
const SAFE_VALUE = /^[\x20-\x7e\t]*$/;

/** A header value as the client meant it: the Base64 sentinel form decoded; throws on bad characters. */
export function decodeHeaderValue(name, raw) {
  if (!SAFE_VALUE.test(raw)) throw new RpcError(HEADER_MISMATCH, `Header mismatch: ${name} contains invalid characters`);
  const m = SENTINEL.exec(raw);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : raw;
}

/**
 * The x-mcp-header annotations of an inputSchema: [{ header, path, type }], following only
 * chains of `properties` keys from the root (the statically reachable rule).
 */
export function headerParams(schema, path = [], out = []) {
  if (!isObject(schema) || !isObject(schema.properties)) return out;
  for (const [key, prop] of Object.entries(schema.properties)) {
    if (!isObject(prop)) continue;
    if (typeof prop['x-mcp-header'] === 'string') out.push({ header: prop['x-mcp-header'], path: [...path, key], type: prop.type });
    headerParams(prop, [...path, key], out);
  }
  return out;
}

const valueAt = (args, path) => path.reduce((v, k) => (isObject(v) ? v[k] : undefined), args);

function sameValue(type, headerValue, bodyValue) {
  if (type === 'integer' || typeof bodyValue === 'number') return headerValue.trim() !== '' && Number(headerValue) === Number(bodyValue);
  if (typeof bodyValue === 'boolean') return headerValue === String(bodyValue);
  return headerValue === String(bodyValue);
}

/**
 * Checks the standard and custom headers of one POSTed request against its body. `get(name)`
 * reads a header case-insensitively; `toolDef(name)` finds a tool definition. Returns the
 * decoded Mcp-Param-* values that were checked; throws RpcError(-32020) on the first mismatch.
 */
export function validateRequestHeaders(msg, get, toolDef) {
  const mismatch = (text) => {
    throw new RpcError(HEADER_MISMATCH, `Header mismatch: ${text}`);
  };
  const version = get('mcp-protocol-version');
  const bodyVersion = msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  if (version === undefined) mismatch('MCP-Protocol-Version header is missing');
  if (bodyVersion !== undefined && version !== bodyVersion) mismatch(`MCP-Protocol-Version header value '${version}' does not match body value '${bodyVersion}'`);
  const method = get('mcp-method');
  if (method === undefined) mismatch('Mcp-Method header is missing');
  if (method !== msg.method) mismatch(`Mcp-Method header value '${method}' does not match body value '${msg.method}'`);
  // the tasks extension (SEP-2663): tasks/get, tasks/update and tasks/cancel route by their taskId
  const nameKey = msg.method === 'resources/read' ? 'uri' : ['tools/call', 'prompts/get'].includes(msg.method) ? 'name' : ['tasks/get', 'tasks/update', 'tasks/cancel'].includes(msg.method) ? 'taskId' : undefined;
  if (nameKey) {
    const raw = get('mcp-name');
    if (raw === undefined) mismatch('Mcp-Name header is missing');
    const name = decodeHeaderValue('Mcp-Name', raw);
    if (name !== msg.params?.[nameKey]) mismatch(`Mcp-Name header value '${name}' does not match body value '${msg.params?.[nameKey]}'`);
  }
  const checked = {};
  if (msg.method !== 'tools/call') return checked;
  const def = toolDef(msg.params?.name);
  for (const p of headerParams(def?.inputSchema)) {
    const header = `Mcp-Param-${p.header}`;
    const body = valueAt(msg.params?.arguments, p.path);
    const raw = get(header.toLowerCase());
    if (body === undefined || body === null) {
      if (raw !== undefined) checked[header] = decodeHeaderValue(header, raw);
      continue;
    }
    if (raw === undefined) mismatch(`${header} header is missing but ${p.path.join('.')} is in the body`);
    const value = decodeHeaderValue(header, raw);
    if (!sameValue(p.type, value, body)) mismatch(`${header} header value '${value}' does not match body value '${body}'`);
    checked[header] = value;
  }
  return checked;
}
