/**
 * Building config diagnostics and parse errors that never echo file content: a JSON syntax
 * error is reported by line and column only, because V8's messages quote the text around the
 * error and the text may hold a secret.
 */
import type { ConfigDiagnostic, ConfigSource } from './types.js';

/** Human name of a layer, for messages. */
export function layerLabel(source: ConfigSource): string {
  if (source === 'project') return 'project config';
  if (source === 'global') return 'global config';
  return 'imported config';
}

/** Where a diagnostic points. */
export interface DiagnosticSite {
  source: ConfigSource;
  file: string;
  serverId?: string;
  field?: string;
}

/** A diagnostic whose message names the layer, file, server id and field (when given). */
export function diagnostic(severity: ConfigDiagnostic['severity'], site: DiagnosticSite, message: string): ConfigDiagnostic {
  const parts = [`${layerLabel(site.source)} ${site.file}`];
  if (site.serverId !== undefined) parts.push(`server "${printable(site.serverId)}"`);
  if (site.field !== undefined && site.field !== '') parts.push(`field "${printable(site.field)}"`);
  const d: ConfigDiagnostic = { severity, source: site.source, file: site.file, message: `${parts.join(': ')}: ${message}` };
  if (site.serverId !== undefined) d.serverId = site.serverId;
  if (site.field !== undefined && site.field !== '') d.field = site.field;
  return d;
}

/** `field "x": message` joined with `; ` — the `error` text of an invalid resolved server. */
export function issuesText(issues: readonly { field: string; message: string }[]): string {
  return issues.map((i) => (i.field ? `field "${printable(i.field)}": ${i.message}` : i.message)).join('; ');
}

/** Parses JSON; on failure returns a message with line/column only (no quoted text). */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(stripBom(text)) };
  } catch (err) {
    const m = /position (\d+)/.exec(String((err as Error).message));
    if (m === null) return { ok: false, message: 'not valid JSON' };
    const { line, column } = lineColumn(text, Number(m[1]));
    return { ok: false, message: `not valid JSON (syntax error at line ${line}, column ${column})` };
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function lineColumn(text: string, pos: number): { line: number; column: number } {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  return { line, column: pos - before.lastIndexOf('\n') };
}

/** Keys and ids from a file are shown escaped and capped so they cannot forge log lines. */
export function printable(s: string, max = 80): string {
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
