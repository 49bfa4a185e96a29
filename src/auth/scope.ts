/**
 * Scope selection (basic.authorization#39, #16, #19): the challenge's `scope` is authoritative;
 * else the PRM's `scopes_supported`; else omitted. `offline_access` is added only when the AS
 * lists it in `scopes_supported` and a refresh token is wanted (SEP-2207).
 */
import type { AuthorizationServerMetadata } from './discovery.js';

export function splitScope(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(/\s+/).filter((s) => s !== '');
}

/** The union of scope strings, first-seen order, as one space-separated string (undefined when empty). */
export function unionScopes(...scopes: (string | undefined)[]): string | undefined {
  const out: string[] = [];
  for (const s of scopes) for (const t of splitScope(s)) if (!out.includes(t)) out.push(t);
  return out.length === 0 ? undefined : out.join(' ');
}

export function selectScope(o: {
  challenge?: string;
  prm?: string[];
  as: AuthorizationServerMetadata;
  configured?: string;
  wantRefresh: boolean;
}): string | undefined {
  let scope: string | undefined;
  if (splitScope(o.challenge).length > 0) scope = unionScopes(o.challenge);
  else if (Array.isArray(o.prm) && o.prm.length > 0) scope = unionScopes(o.prm.filter((s) => typeof s === 'string').join(' '));
  else scope = unionScopes(o.configured);
  const asScopes = Array.isArray(o.as.scopes_supported) ? o.as.scopes_supported : [];
  if (o.wantRefresh && asScopes.includes('offline_access')) scope = unionScopes(scope, 'offline_access');
  return scope;
}
