/**
 * A view's Content Security Policy and iframe `allow` attribute, from what its resource declares
 * (`_meta.ui.csp`, `_meta.ui.permissions`). The apps spec: the host "MUST construct CSP headers
 * based on declared domains", "MAY further restrict but MUST NOT allow undeclared domains", and
 * without `csp` uses the restrictive default. Declared entries are untrusted: only an origin
 * (`scheme://host[:port]`, a `*.` wildcard subdomain allowed) passes; anything else (a keyword,
 * a path, a `;`, spaces, quotes) is dropped and reported, never pasted into the policy.
 */

import { isViewCspOrigin } from '../mcp/ui-meta.js';

/** The domains a view declares (`McpUiResourceCsp`). */
export interface ViewCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The permissions a view requests (`McpUiResourcePermissions`): an empty object each. */
export interface ViewPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** The spec's policy when a view declares no `csp` (the draft's `object-src 'none'` added: a further restriction). */
export const DEFAULT_VIEW_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'";

/** Whether `entry` is an origin a CSP source list may hold (wildcard subdomains allowed). */
export const isCspOrigin = isViewCspOrigin;

/** What `buildCsp` made: the policy, the entries used (what the host grants) and those dropped. */
export interface BuiltCsp {
  policy: string;
  /** The declared domains kept, per key: what the host actually grants (`hostCapabilities.sandbox.csp`). */
  granted: ViewCsp;
  /** Entries that are not origins, `key: entry` (bounded). */
  rejected: string[];
}

const KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

function originsOf(csp: unknown, key: (typeof KEYS)[number], rejected: string[]): string[] {
  const list = csp !== null && typeof csp === 'object' ? (csp as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(list)) return [];
  const kept: string[] = [];
  for (const e of list.slice(0, 256)) {
    if (isCspOrigin(e)) kept.push(e.replace(/\/$/, ''));
    else if (rejected.length < 32) rejected.push(`${key}: ${JSON.stringify(e)?.slice(0, 120)}`);
  }
  return [...new Set(kept)];
}

/**
 * The policy for a view's declared `csp` (absent or not an object: the spec's default).
 * resourceDomains → script/style/img/font/media-src; connectDomains → connect-src; frame-src is
 * frameDomains or `'none'`; base-uri is baseUriDomains or `'self'`; always `object-src 'none'`.
 */
export function buildCsp(csp: unknown): BuiltCsp {
  const rejected: string[] = [];
  if (csp === null || typeof csp !== 'object' || Array.isArray(csp)) return { policy: DEFAULT_VIEW_CSP, granted: {}, rejected };
  const [connect, resource, frame, base] = KEYS.map((k) => originsOf(csp, k, rejected));
  const res = resource.join(' ');
  const src = (extra: string) => [`'self'`, extra, res].filter(Boolean).join(' ');
  const policy = [
    "default-src 'none'",
    `script-src ${src("'unsafe-inline'")}`,
    `style-src ${src("'unsafe-inline'")}`,
    `img-src ${src('data:')}`,
    `font-src ${src('data:')}`,
    `media-src ${src('data:')}`,
    `connect-src ${connect.length > 0 ? connect.join(' ') : "'none'"}`,
    `frame-src ${frame.length > 0 ? frame.join(' ') : "'none'"}`,
    `base-uri ${base.length > 0 ? base.join(' ') : "'self'"}`,
    "object-src 'none'",
  ].join('; ');
  const granted: ViewCsp = {};
  KEYS.forEach((k, i) => {
    const v = [connect, resource, frame, base][i];
    if (v.length > 0) granted[k] = v;
  });
  return { policy, granted, rejected };
}

const FEATURES = [
  ['camera', 'camera'],
  ['microphone', 'microphone'],
  ['geolocation', 'geolocation'],
  ['clipboardWrite', 'clipboard-write'],
] as const;

/**
 * The iframe `allow` attribute for the requested permissions, limited to what the embedder
 * `grants` (default: none — a host grants a device only when it decides to). Also what was granted.
 */
export function buildAllow(requested: unknown, grants: readonly (keyof ViewPermissions)[] = []): { allow: string; granted: ViewPermissions } {
  const asked = requested !== null && typeof requested === 'object' ? (requested as Record<string, unknown>) : {};
  const granted: ViewPermissions = {};
  const parts: string[] = [];
  for (const [key, feature] of FEATURES) {
    if (asked[key] === undefined || !grants.includes(key)) continue;
    granted[key] = {};
    parts.push(feature);
  }
  return { allow: parts.join('; '), granted };
}
