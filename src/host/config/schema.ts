/**
 * Validation of one server entry in the native shape with zod, and its
 * normalization to `NormalizedServerConfig`. Import formats are converted to this shape first
 * so every entry passes the same checks. Issues name the field, never the value: values may
 * be secrets (env, headers, client_secret).
 */
import path from 'node:path';
import type { z } from 'zod';
import { isLoopback } from '../../auth/http.js';
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS, unsupportedRequestedVersion } from '../../mcp/versions.js';
import { ENV_NAME, HEADER_NAME, plainEntry } from './plain-entry.js';
import { sandboxSettings, sandboxZod } from './sandbox.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  DEFAULT_RETRY_MULTIPLIER,
  DEFAULT_RETRY_ON,
  RETRYABLE_OUTCOMES,
  type EnterpriseAuthSettings,
  type NormalizedServerConfig,
  type RetrySettings,
  type TransportKind,
} from './types.js';
import { lazy, lazyObject } from './zod.js';

const noNul = (s: string): boolean => !s.includes('\0');
const noLineBreak = (s: string): boolean => !/[\r\n\0]/.test(s);
const ID_TOKEN_SOURCES = ['id_token_file', 'id_token_env', 'id_token_command'] as const;

/** The zod schemas of an entry's parts, built on first use (./zod.ts). */
const parts = lazy((z) => {
  const nonEmpty = z.string().min(1);

  /**
   * `oauth.enterprise`: the IdP that exchanges the user's ID token for an ID-JAG. Strict, so a
   * misspelt ID-token source is an error rather than a missing one.
   */
  const enterpriseSchema = z
    .object({
      idp_token_url: nonEmpty.refine(httpsOrLoopback, 'must be an https URL (http only on a loopback host)'),
      client_id: nonEmpty,
      client_secret: nonEmpty.optional(),
      id_token_file: nonEmpty.optional(),
      id_token_env: nonEmpty.optional(),
      id_token_command: z.array(nonEmpty).min(1).optional(),
    })
    .strict()
    .superRefine((o, ctx) => {
      const given = ID_TOKEN_SOURCES.filter((k) => o[k] !== undefined);
      if (given.length === 1) return;
      const message = `give exactly one of ${ID_TOKEN_SOURCES.join(', ')} (the user's ID token)`;
      if (given.length === 0) ctx.addIssue({ code: z.ZodIssueCode.custom, message, path: ['id_token_file'] });
      for (const k of given.slice(1)) ctx.addIssue({ code: z.ZodIssueCode.custom, message, path: [k] });
    });

  const oauthSchema = z.object({
    authorization_url: nonEmpty.optional(),
    token_url: nonEmpty.optional(),
    registration_url: nonEmpty.optional(),
    client_id: nonEmpty.optional(),
    client_secret: nonEmpty.optional(),
    scope: z.string().optional(),
    auto_login: z.boolean().optional(),
    dpop: z.boolean().optional(),
    assertion_file: nonEmpty.optional(),
    assertion_env: nonEmpty.optional(),
    assertion_command: z.array(nonEmpty).min(1).optional(),
    enterprise: enterpriseSchema.optional(),
  }).refine((o) => [o.assertion_file, o.assertion_env, o.assertion_command].filter((v) => v !== undefined).length <= 1, {
    message: 'give at most one of assertion_file, assertion_env, assertion_command',
  }).refine((o) => o.enterprise === undefined || [o.assertion_file, o.assertion_env, o.assertion_command].every((v) => v === undefined), {
    message: 'enterprise-managed authorization and a workload identity (assertion_*) exclude each other',
    path: ['enterprise'],
  });

  /** One `retry.retry_on` item: a retryable outcome, a result code, or a JSON-RPC error code. */
  const retryOnItem = z.union([
    z.number().int(),
    z.string().refine((v) => RETRYABLE_OUTCOMES.includes(v) || /^[A-Z][A-Z0-9_]{1,63}$/.test(v), {
      message: `must be an outcome (${RETRYABLE_OUTCOMES.join(', ')}), a result code (MCPWIRE_…) or a JSON-RPC error code`,
    }),
  ]);

  const retrySchema = z.object({
    max_retries: z.number().int().min(0).max(100).optional(),
    base_delay_ms: z.number().int().min(0).max(3_600_000).optional(),
    max_delay_ms: z.number().int().min(0).max(3_600_000).optional(),
    multiplier: z.number().min(1).max(10).optional(),
    retry_on: z.array(retryOnItem).max(64).optional(),
    retry_non_idempotent: z.boolean().optional(),
  });

  const permissionsSchema = z.object({
    allow: z.array(nonEmpty).optional(),
    deny: z.array(nonEmpty).optional(),
  });
  return { nonEmpty, oauthSchema, enterpriseSchema, retrySchema, permissionsSchema };
});

/** The zod schema of a whole entry, built on first use. */
const schemas = lazy((z) => {
  const { nonEmpty, oauthSchema, enterpriseSchema, retrySchema, permissionsSchema } = parts();
  /**
   * The native server entry (`McpServerConfig`, plus `permissions`), field by field.
   * Cross-field rules (`url`/`command` required by transport, URL schemes) are checked by
   * `crossFieldIssues`, which runs even when a field fails here, so every problem shows at once.
   */
  const serverEntry = z.object({
    /** `sse`: an HTTP server speaking the legacy 2024-11-05 HTTP+SSE transport (`mcp add --transport sse`). */
    transport: z.enum(['stdio', 'http', 'sse']),
    enabled: z.boolean().optional(),
    command: nonEmpty.refine(noNul, 'must not contain NUL').optional(),
    args: z.array(z.string().refine(noNul, 'must not contain NUL')).optional(),
    cwd: nonEmpty.optional(),
    env: z
      .record(z.string().regex(ENV_NAME, 'invalid environment variable name'), z.string().refine(noNul, 'must not contain NUL'))
      .optional(),
    url: nonEmpty.optional(),
    headers: z
      .record(z.string().regex(HEADER_NAME, 'invalid HTTP header name'), z.string().refine(noLineBreak, 'must not contain line breaks'))
      .optional(),
    /** Env and header names whose values are secrets whatever they look like (src/trace/configured-secrets.ts). */
    secret_names: z.array(nonEmpty).optional(),
    /** Where `mcp add --from-registry` got the entry (src/registry): shown by `mcp list`, used by `mcp update`. */
    from_registry: z
      .object({ registry: nonEmpty, name: nonEmpty, version: nonEmpty, package: nonEmpty, inputs: z.record(z.string(), z.array(z.string())).optional() })
      .optional(),
    request_timeout_ms: z.number().int().positive().max(2_147_483_647).optional(),
    oauth: oauthSchema.optional(),
    permissions: permissionsSchema.optional(),
    /** client/roots: the directories this server may see (absolute paths), offered as file:// roots. */
    roots: z.array(nonEmpty.refine((p) => path.isAbsolute(p), 'must be an absolute directory path').refine(noNul, 'must not contain NUL')).optional(),
    /** Tool calls (src/host/calls.ts): concurrency limit, retries, timeouts, argument checks. */
    max_parallel: z.number().int().positive().max(10_000).optional(),
    retry: retrySchema.optional(),
    reset_timeout_on_progress: z.boolean().optional(),
    max_total_timeout_ms: z.number().int().positive().max(2_147_483_647).optional(),
    validate_input: z.boolean().optional(),
    /** server.tools#6: this server's tool annotations (`idempotentHint`, `readOnlyHint`…) are trusted for decisions (retry); default: claims only. */
    trust_annotations: z.boolean().optional(),
    /** `mcpwire daemon start` holds only the servers marked so, when any is (docs/daemon.md). */
    keep_alive: z.boolean().optional(),
    /** Run this stdio server sandboxed (./sandbox.ts, docs/sandbox.md); off when absent or false. */
    sandbox: sandboxZod().optional(),
    /** Pins the protocol version and so the era (src/mcp/eras/select.ts): no probe. Default: found per server. */
    protocol_version: z
      .string()
      .refine((v) => unsupportedRequestedVersion(v) === undefined, { message: `must be one of ${[...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS].join(', ')}` })
      .optional(),
  });
  return { serverEntry, oauth: oauthSchema, enterprise: enterpriseSchema, retry: retrySchema };
});
type Schemas = ReturnType<typeof schemas>;

/**
 * The native server entry's zod schema (the object is built on first use, so a process that
 * validates no entry never loads zod).
 */
export const serverEntrySchema: Schemas['serverEntry'] = lazyObject(() => schemas().serverEntry);

/** The raw (snake_case) native entry type. */
export type ServerEntry = z.infer<Schemas['serverEntry']>;

/**
 * Keys the native entry knows; others are reported as warnings and ignored. Listed, not read
 * from the zod schema, so that reading a config loads no zod (a test keeps both the same).
 */
export function knownEntryKeys(): ReadonlySet<string> {
  return ENTRY_KEYS;
}
const ENTRY_KEYS: ReadonlySet<string> = new Set([
  'transport', 'enabled', 'command', 'args', 'cwd', 'env', 'url', 'headers', 'secret_names', 'from_registry', 'request_timeout_ms', 'oauth', 'permissions', 'roots',
  'max_parallel', 'retry', 'reset_timeout_on_progress', 'max_total_timeout_ms', 'validate_input', 'trust_annotations', 'keep_alive', 'sandbox', 'protocol_version',
]);

/** One problem with one field of an entry. */
export interface EntryIssue {
  /** Dotted path inside the entry, `''` for the entry itself. */
  field: string;
  message: string;
}

/** A valid entry, normalized. */
export interface ValidEntry {
  transport: TransportKind;
  enabled: boolean;
  config: NormalizedServerConfig;
}

/** Result of validating one entry. `transport` is a best guess when the entry is invalid. */
export type EntryValidation =
  | { ok: true; entry: ValidEntry }
  | { ok: false; issues: EntryIssue[]; transport: TransportKind | 'unknown'; enabled: boolean };

/**
 * Validates one native-shaped entry and normalizes it. `legacySse` is carried over from import
 * formats (`type: "sse"`); native entries never set it.
 */
export function validateServerEntry(raw: unknown, legacySse = false): EntryValidation {
  // the common entry is checked by hand (./plain-entry.ts: yes only where zod says yes), so most commands never load zod
  const plain = plainEntry(raw);
  if (plain !== undefined && crossFieldIssues(raw).length === 0) return { ok: true, entry: normalizeEntry(plain as ServerEntry, legacySse) };
  return validateWithZod(raw, legacySse);
}

/** `validateServerEntry` by the zod schema alone (what the hand check must agree with). */
export function validateWithZod(raw: unknown, legacySse = false): EntryValidation {
  const parsed = schemas().serverEntry.safeParse(raw);
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message }));
  for (const extra of crossFieldIssues(raw)) {
    if (!issues.some((i) => i.field === extra.field)) issues.push(extra);
  }
  if (!parsed.success || issues.length > 0) return { ok: false, issues, transport: guessTransport(raw), enabled: false };
  return { ok: true, entry: normalizeEntry(parsed.data, legacySse) };
}

/**
 * A hand-written entry without `transport` gets the one its fields imply, as the other hosts'
 * formats do: stdio when it names a `command`, streamable HTTP when a `url`. Naming neither (or
 * both) is an issue on `transport` saying what to write.
 */
export function inferTransport(raw: unknown): { value: unknown; issue?: EntryIssue } {
  if (!isPlainObject(raw) || raw.transport !== undefined) return { value: raw };
  const command = raw.command !== undefined;
  const url = raw.url !== undefined;
  if (command && !url) return { value: { ...raw, transport: 'stdio' } };
  if (url && !command) return { value: { ...raw, transport: 'http' } };
  const message = command
    ? 'missing, and the entry has both "command" and "url": set "transport" to "stdio" or "http"'
    : 'missing: give "command" (a stdio server the host starts) or "url" (a streamable HTTP server), or set "transport"';
  return { value: raw, issue: { field: 'transport', message } };
}

/** Keys of `raw` (when it is an object) that the native entry does not know. */
export function unknownEntryKeys(raw: unknown): string[] {
  if (!isPlainObject(raw)) return [];
  return Object.keys(raw).filter((k) => !knownEntryKeys().has(k));
}

/** Rules that involve more than one field, checked on the raw value. */
function crossFieldIssues(raw: unknown): EntryIssue[] {
  if (!isPlainObject(raw)) return [];
  const out: EntryIssue[] = [];
  if ((raw.transport === 'http' || raw.transport === 'sse') && raw.url === undefined) out.push({ field: 'url', message: `required when transport is "${raw.transport}"` });
  if (raw.transport === 'stdio' && raw.command === undefined) out.push({ field: 'command', message: 'required when transport is "stdio"' });
  if ((raw.transport === 'http' || raw.transport === 'sse') && raw.sandbox !== undefined && raw.sandbox !== false) out.push({ field: 'sandbox', message: 'applies to stdio servers only (the host starts them)' });
  if (typeof raw.url === 'string' && !isHttpUrl(raw.url)) out.push({ field: 'url', message: 'must be an absolute http(s) URL' });
  // A typo inside `permissions` ("denied" for "deny") would silently allow calls: an error.
  if (isPlainObject(raw.permissions)) {
    for (const k of Object.keys(raw.permissions)) {
      if (k === 'allow' || k === 'deny') continue;
      const hint = /^(den|block|disallow|forbid|exclude)/i.test(k) ? ' (did you mean "deny"?)' : /^(allow|permit|include|approve)/i.test(k) ? ' (did you mean "allow"?)' : '';
      out.push({ field: `permissions.${k}`, message: `unknown field${hint}; "permissions" takes only "allow" and "deny"` });
    }
  }
  const oauth = isPlainObject(raw.oauth) ? raw.oauth : {};
  for (const k of ['authorization_url', 'token_url', 'registration_url']) {
    const v = oauth[k];
    if (typeof v === 'string' && !isHttpUrl(v)) out.push({ field: `oauth.${k}`, message: 'must be an absolute http(s) URL' });
  }
  return out;
}

function normalizeEntry(e: ServerEntry, legacySse: boolean): ValidEntry {
  const config: NormalizedServerConfig = {
    args: e.args ?? [],
    env: { ...(e.env ?? {}) },
    headers: { ...(e.headers ?? {}) },
    requestTimeoutMs: e.request_timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS,
    legacySse: e.transport === 'sse' || (e.transport === 'http' && legacySse),
    permissions: { allow: e.permissions?.allow ?? [], deny: e.permissions?.deny ?? [] },
  };
  if (e.command !== undefined) config.command = e.command;
  if (e.cwd !== undefined) config.cwd = e.cwd;
  if (e.url !== undefined) config.url = e.url;
  if (e.secret_names !== undefined) config.secretNames = [...e.secret_names];
  if (e.from_registry !== undefined) config.fromRegistry = structuredClone(e.from_registry);
  if (e.oauth !== undefined) config.oauth = normalizeOAuth(e.oauth);
  if (e.roots !== undefined) config.roots = e.roots.map((r) => path.resolve(r));
  if (e.max_parallel !== undefined) config.maxParallel = e.max_parallel;
  if (e.retry !== undefined) {
    config.retry = retrySettings(e.retry);
  }
  if (e.reset_timeout_on_progress !== undefined) config.resetTimeoutOnProgress = e.reset_timeout_on_progress;
  if (e.max_total_timeout_ms !== undefined) config.maxTotalTimeoutMs = e.max_total_timeout_ms;
  if (e.validate_input !== undefined) config.validateInput = e.validate_input;
  if (e.trust_annotations === true) config.trustAnnotations = true;
  if (e.keep_alive !== undefined) config.keepAlive = e.keep_alive;
  if (e.protocol_version !== undefined) config.protocolVersion = e.protocol_version;
  const sandbox = sandboxSettings(e.sandbox);
  if (sandbox !== undefined) config.sandbox = sandbox;
  return { transport: e.transport === 'sse' ? 'http' : e.transport, enabled: e.enabled !== false, config };
}

/** The normalized retry policy of a `retry` block (every knob defaulted). */
export function retrySettings(r: z.infer<Schemas['retry']>): RetrySettings {
  return {
    maxRetries: r.max_retries ?? 0,
    baseDelayMs: r.base_delay_ms ?? DEFAULT_RETRY_BASE_DELAY_MS,
    maxDelayMs: r.max_delay_ms ?? DEFAULT_RETRY_MAX_DELAY_MS,
    multiplier: r.multiplier ?? DEFAULT_RETRY_MULTIPLIER,
    retryOn: r.retry_on ?? DEFAULT_RETRY_ON,
    retryNonIdempotent: r.retry_non_idempotent === true,
  };
}

function normalizeOAuth(o: z.infer<Schemas['oauth']>): NonNullable<NormalizedServerConfig['oauth']> {
  const out: NonNullable<NormalizedServerConfig['oauth']> = {};
  if (o.authorization_url !== undefined) out.authorizationUrl = o.authorization_url;
  if (o.token_url !== undefined) out.tokenUrl = o.token_url;
  if (o.registration_url !== undefined) out.registrationUrl = o.registration_url;
  if (o.client_id !== undefined) out.clientId = o.client_id;
  if (o.client_secret !== undefined) out.clientSecret = o.client_secret;
  if (o.scope !== undefined) out.scope = o.scope;
  if (o.auto_login !== undefined) out.autoLogin = o.auto_login;
  if (o.dpop !== undefined) out.dpop = o.dpop;
  if (o.assertion_file !== undefined) out.assertionFile = o.assertion_file;
  if (o.assertion_env !== undefined) out.assertionEnv = o.assertion_env;
  if (o.assertion_command !== undefined) out.assertionCommand = o.assertion_command;
  if (o.enterprise !== undefined) out.enterprise = normalizeEnterprise(o.enterprise);
  return out;
}

function normalizeEnterprise(e: z.infer<Schemas['enterprise']>): EnterpriseAuthSettings {
  const out: EnterpriseAuthSettings = { idpTokenUrl: e.idp_token_url, clientId: e.client_id };
  if (e.client_secret !== undefined) out.clientSecret = e.client_secret;
  if (e.id_token_file !== undefined) out.idTokenFile = e.id_token_file;
  if (e.id_token_env !== undefined) out.idTokenEnv = e.id_token_env;
  if (e.id_token_command !== undefined) out.idTokenCommand = e.id_token_command;
  return out;
}

function guessTransport(raw: unknown): TransportKind | 'unknown' {
  if (!isPlainObject(raw)) return 'unknown';
  if (raw.transport === 'stdio' || raw.transport === 'http') return raw.transport;
  if (raw.transport === 'sse') return 'http';
  return 'unknown';
}

/** The IdP gets the user's ID token: https, or plain http only to this machine. */
function httpsOrLoopback(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopback(u));
  } catch {
    return false;
  }
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** True for a non-null, non-array object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
