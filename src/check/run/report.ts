/**
 * Rendering a check report: a table for people (with the explanation and the offending message
 * under each failure/warning), stable JSON for machines, and the exit code rule.
 */
import { isNotApplicable, type CheckReport, type CheckResult, type Status } from '../core/types.js';

const MARK: Record<Status, string> = { pass: 'PASS', fail: 'FAIL', warn: 'WARN', skip: 'SKIP', error: 'ERROR' };

/** Strips control characters (terminal escapes) and bounds length: server text is untrusted. */
export function clean(s: string, max = 400): string {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function row(r: CheckResult): string[] {
  return [MARK[r.status], r.id, r.level, r.clause, r.status === 'pass' || r.status === 'skip' ? clean(r.detail ?? r.title, 90) : clean(r.title, 90)];
}

function pad(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
}

/**
 * The report as a table. Checks that do not apply to this server (the other era's, the other
 * transport's) are one line under the table unless `verbose` lists them as rows.
 */
export function renderCheckReport(report: CheckReport, options: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  const who = report.serverInfo ? ` — ${clean(String(report.serverInfo.name), 60)} ${clean(String(report.serverInfo.version), 30)}` : '';
  lines.push(`mcpwire check: ${clean(report.target, 120)}${who}${report.protocolVersion ? ` (protocol ${clean(report.protocolVersion, 20)})` : ''}`);
  lines.push(eraLine(report));
  if (report.refused !== undefined) {
    lines.push('', `NOT CHECKED: ${clean(report.refused.detail, 600)}`);
    lines.push(report.refused.supported.length ? `the server supports: ${report.refused.supported.map((v) => clean(v, 20)).join(', ')} (check one with --protocol-version <v>)` : 'the server named no version it supports');
    return lines.join('\n');
  }
  lines.push('');
  const header = ['status', 'check', 'level', 'clause', 'detail'];
  const hidden = options.verbose === true ? [] : report.results.filter(isNotApplicable);
  const shown = hidden.length === 0 ? report.results : report.results.filter((r) => !isNotApplicable(r));
  lines.push(...pad([header, header.map((h) => '-'.repeat(h.length)), ...shown.map(row)]));
  if (hidden.length > 0) lines.push(`(${hidden.length} checks not applicable to this server — of the other era or transport — not shown; --verbose lists them, check --list names every check)`);
  const problems = report.results.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error');
  if (problems.length > 0) {
    lines.push('');
    for (const r of problems) {
      lines.push(`${MARK[r.status]} ${r.id}: ${clean(r.detail ?? '', 1000)}`);
      if (r.evidence !== undefined) lines.push(`     offending: ${clean(r.evidence, 400)}`);
    }
  }
  const s = report.summary;
  lines.push('');
  lines.push(`${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped${s.error ? `, ${s.error} checker errors` : ''} (${(report.durationMs / 1000).toFixed(1)} s)`);
  return lines.join('\n');
}

/** `era: modern (2026-07-28, stateless); the server claims 2026-07-28, 2025-11-25`. */
function eraLine(report: CheckReport): string {
  const era = report.era === 'modern' ? 'modern (stateless, per-request _meta)' : 'handshake (initialize)';
  const claims = report.supportedVersions?.length ? `; the server claims ${report.supportedVersions.map((v) => clean(String(v), 20)).join(', ')}` : '';
  return `era: ${era}${claims}`;
}

/** 1 when anything failed (or errored), or warned with `failOnWarning`; else 0. */
export function checkExitCode(report: CheckReport, failOnWarning = false): number {
  const s = report.summary;
  // a refused version: nothing was checked, which CI must not take for a pass
  if (report.refused !== undefined) return 1;
  return s.fail > 0 || s.error > 0 || (failOnWarning && s.warn > 0) ? 1 : 0;
}
