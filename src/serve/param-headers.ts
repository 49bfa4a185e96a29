/**
 * The gateway as a 2026-07-28 Streamable HTTP server checks the headers that mirror a request's
 * body (basic/transports/streamable-http.md, "Value Encoding", "Server Behavior for Custom
 * Headers", "Server Validation"): what fails is `HeaderMismatch` (-32020, HTTP 400).
 *
 * - A header value is decoded first: the Base64 sentinel `=?base64?…?=` (markers lowercase) to
 *   its UTF-8 text (basic.transports.streamable_http#48, #64); a value with characters a header
 *   may not carry (beyond visible ASCII, space and tab), or a sentinel that is not Base64, is
 *   refused (#53).
 * - `Mcp-Param-{Name}` for each `x-mcp-header` of the called tool's `inputSchema` as the gateway
 *   lists it: a body value there (a string, a safe integer, a boolean) needs the header and the
 *   header must equal it — integers compared as numbers, `42.0` equals `42` (#54, #59, #61,
 *   #62); no value there (absent or null) and the header may not be sent either (#57, #58: a
 *   header the body does not back is a mismatch). Header names compare ignoring case (#60:
 *   Node gives them lowercase).
 */
import type http from 'node:http';
import { headerParams, paramValueText, valueAt } from '../mcp/eras/http-headers.js';
import { HEADER_MISMATCH } from '../mcp/eras/modern-errors.js';

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// eslint-disable-next-line no-control-regex
const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

export interface HeaderFault {
  code: number;
  message: string;
}

const fault = (message: string): HeaderFault => ({ code: HEADER_MISMATCH, message: `Header mismatch: ${message}` });

/** A header value as the client meant it (the sentinel decoded), or a fault naming `name`. */
export function decodeHeaderValue(name: string, raw: string): string | HeaderFault {
  if (!HEADER_SAFE.test(raw)) return fault(`${name} contains characters a header value may not carry`);
  // most values are plain: the sentinel's pattern only for one that starts like it
  if (!raw.startsWith('=?base64?')) return raw;
  const m = SENTINEL.exec(raw);
  if (m === null) return raw;
  if (!BASE64.test(m[1]!)) return fault(`${name} is not valid Base64 inside =?base64?…?=`);
  return Buffer.from(m[1]!, 'base64').toString('utf8');
}

/** One header's value: undefined when absent; a fault when sent twice. */
function single(headers: http.IncomingHttpHeaders, name: string): string | HeaderFault | undefined {
  const v = headers[name.toLowerCase()];
  if (Array.isArray(v)) return fault(`${name} is sent more than once`);
  return v;
}

/** The `type` of the schema at `path` (through `properties` keys). */
function typeAt(schema: unknown, path: readonly string[]): unknown {
  let s = schema as Record<string, unknown> | undefined;
  for (const key of path) s = (s?.properties as Record<string, Record<string, unknown>> | undefined)?.[key];
  return s?.type;
}

function same(type: unknown, header: string, body: unknown): boolean {
  if (typeof body === 'number' || type === 'integer') return header.trim() !== '' && Number(header) === Number(body);
  return header === paramValueText(body);
}

/** Why the `Mcp-Param-*` headers of a `tools/call` disagree with its arguments, or undefined (see the module comment). */
export function paramHeaderProblem(headers: http.IncomingHttpHeaders, inputSchema: unknown, args: unknown): HeaderFault | undefined {
  for (const p of headerParams(inputSchema)) {
    const name = `Mcp-Param-${p.name}`;
    const raw = single(headers, name);
    if (typeof raw === 'object') return raw;
    const body = valueAt(args, p.path);
    const where = p.path.join('.');
    if (paramValueText(body) === undefined) {
      if (raw !== undefined) return fault(`${name} is sent but the body has no value at ${where}`);
      continue;
    }
    if (raw === undefined) return fault(`${name} header is missing but ${where} is in the body`);
    const value = decodeHeaderValue(name, raw);
    if (typeof value === 'object') return value;
    // Neither value is quoted: a mirrored argument may be a credential, which the traces of both
    // legs redact in the body (trace/header-copies.ts) and an error message would carry in clear.
    if (!same(typeAt(inputSchema, p.path), value, body)) return fault(`${name} header value does not match the body value at ${where}`);
  }
  return undefined;
}
