/**
 * JUnit XML for CI (`mcpwire check --junit <file>`): one <testsuite> per server, one <testcase>
 * per check (classname = the check's group, name = id and clause). fail → <failure>, checker
 * error → <error>, skip → <skipped>, warn → <failure type="warning"> with `failOnWarning`, else a
 * passing testcase whose <system-out> carries the warning.
 */
import type { CheckReport, CheckResult } from '../core/types.js';

/** XML 1.0 text: escapes markup and drops characters XML cannot carry. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const attr = (name: string, value: string | number) => ` ${name}="${xmlEscape(String(value))}"`;

function testcase(r: CheckResult, suite: string, failOnWarning: boolean): string {
  const open = `    <testcase${attr('classname', `${suite}.${r.id.split('.')[0]}`)}${attr('name', `${r.id} [${r.clause} ${r.level}]`)}${attr('time', (r.durationMs / 1000).toFixed(3))}`;
  const body = (r.detail ?? '') + (r.evidence !== undefined ? `\noffending: ${r.evidence}` : '');
  switch (r.status) {
    case 'pass':
      return `${open}/>`;
    case 'skip':
      return `${open}>\n      <skipped${attr('message', r.detail ?? 'skipped')}/>\n    </testcase>`;
    case 'fail':
      return `${open}>\n      <failure${attr('message', r.detail ?? r.title)}${attr('type', r.level)}>${xmlEscape(body)}</failure>\n    </testcase>`;
    case 'error':
      return `${open}>\n      <error${attr('message', r.detail ?? 'checker error')}${attr('type', 'checker-error')}>${xmlEscape(body)}</error>\n    </testcase>`;
    case 'warn':
      return failOnWarning
        ? `${open}>\n      <failure${attr('message', r.detail ?? r.title)}${attr('type', 'warning')}>${xmlEscape(body)}</failure>\n    </testcase>`
        : `${open}>\n      <system-out>${xmlEscape(`WARNING (${r.level}): ${body}`)}</system-out>\n    </testcase>`;
  }
}

/** Renders reports (one per server) as a JUnit XML document. */
export function renderJUnit(reports: Array<{ name: string; report: CheckReport }>, options: { failOnWarning?: boolean } = {}): string {
  const fw = options.failOnWarning === true;
  // a refused protocol version is one errored testcase of its suite
  const count = (rs: CheckResult[], refused = 0) => ({
    tests: rs.length + refused,
    failures: rs.filter((r) => r.status === 'fail' || (fw && r.status === 'warn')).length,
    errors: rs.filter((r) => r.status === 'error').length + refused,
    skipped: rs.filter((r) => r.status === 'skip').length,
  });
  const all = reports.flatMap((x) => x.report.results);
  const t = count(all, reports.filter((x) => x.report.refused !== undefined).length);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites${attr('name', 'mcpwire check')}${attr('tests', t.tests)}${attr('failures', t.failures)}${attr('errors', t.errors)}${attr('skipped', t.skipped)}${attr('time', (reports.reduce((n, x) => n + x.report.durationMs, 0) / 1000).toFixed(3))}>`);
  for (const { name, report } of reports) {
    const c = count(report.results, report.refused !== undefined ? 1 : 0);
    const suite = name.replace(/[^A-Za-z0-9_.-]/g, '_');
    lines.push(`  <testsuite${attr('name', name)}${attr('tests', c.tests)}${attr('failures', c.failures)}${attr('errors', c.errors)}${attr('skipped', c.skipped)}${attr('time', (report.durationMs / 1000).toFixed(3))}>`);
    lines.push(`    <properties>\n      <property${attr('name', 'target')}${attr('value', report.target)}/>${report.protocolVersion ? `\n      <property${attr('name', 'protocolVersion')}${attr('value', report.protocolVersion)}/>` : ''}${report.era ? `\n      <property${attr('name', 'era')}${attr('value', report.era)}/>` : ''}${report.supportedVersions?.length ? `\n      <property${attr('name', 'supportedVersions')}${attr('value', report.supportedVersions.join(','))}/>` : ''}\n    </properties>`);
    for (const r of report.results) lines.push(testcase(r, suite, fw));
    if (report.refused !== undefined) lines.push(`    <testcase${attr('classname', `${suite}.protocol`)}${attr('name', `protocol version ${report.refused.requested}`)}>\n      <error${attr('message', report.refused.detail)}${attr('type', 'version-refused')}/>\n    </testcase>`);
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
