/**
 * `mcpwire trust [<dir>]`: allows the servers of a project (its `.mcpwire/config.json` and its
 * `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`) to start, as they are configured now;
 * prints what it trusted. A later change to any of those entries (command, args, env, cwd, url,
 * headers…) or a new entry is untrusted again until the next `mcpwire trust`.
 *
 * `mcpwire trust --list`: the trusted projects. `mcpwire trust --revoke [<dir>]` (or
 * `mcpwire untrust [<dir>]`): forgets a project. The store is `trusted-projects.json` beside the
 * global config file (mode 0600). `<dir>` defaults to the current directory.
 */
import path from 'node:path';
import { listTrustedProjects, trustProject, untrustProject } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { pathOptions, printDiagnostics, scrubber } from '../config-target.js';
import { cellText, printJson, safeText } from '../output.js';
import { table } from '../layout.js';
import { listedServer, target } from './mcp-list.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.trust;

export default function trust(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { list: { type: 'boolean' }, revoke: { type: 'boolean' } } }, async ({ values, positionals }) => {
    if (positionals.length > 1 || (values.list && (positionals.length > 0 || values.revoke))) throw new UsageError(USAGE);
    const dir = positionals[0] ?? '.';
    const json = values.json === true;
    if (values.list) return await list(json);
    if (values.revoke) return await revoke(dir, json);
    return await grant(dir, json);
  });
}

async function grant(dir: string, json: boolean): Promise<number> {
  const r = await trustProject(dir, pathOptions());
  printDiagnostics(r.diagnostics);
  const all = [...r.servers, ...r.pending.map((p) => p.server)];
  const scrub = scrubber(all);
  const rows = all.map((s) => ({ id: s.id, transport: s.transport, file: path.relative(r.project, s.file).split(path.sep).join('/'), target: target(listedServer(s, scrub)) }));
  const waiting = r.pending.map((p) => ({ id: p.server.id, unset: p.unset }));
  if (json) {
    printJson({ project: r.project, file: r.file, servers: rows.map(({ id, transport, file }) => ({ id, transport, file })), ...(waiting.length ? { waiting_for_variables: waiting } : {}) });
    return 0;
  }
  // An entry invalid now only for an unset ${VAR} is trusted as written: said, not skipped silently.
  for (const w of waiting) {
    const names = w.unset.map((n) => `\${${n}}`).join(', ');
    process.stderr.write(`mcpwire: note: server "${safeText(w.id, 64)}" uses ${names}, not set now: trusted as written; it starts once ${w.unset.length === 1 ? 'it is' : 'they are'} set\n`);
  }
  if (rows.length === 0) {
    process.stdout.write(`trusted ${safeText(r.project, 500)}: it defines no servers now (a server added later asks again)\n`);
    return 0;
  }
  process.stdout.write(`trusted ${safeText(r.project, 500)}; these project servers may start (a change to them asks again):\n`);
  process.stdout.write(`${table(['id', 'transport', 'file', 'target'], rows.map((x) => [safeText(x.id, 64), x.transport, cellText(x.file, 200), x.target]))}\n`);
  return 0;
}

async function revoke(dir: string, json: boolean): Promise<number> {
  const r = await untrustProject(dir, pathOptions());
  if (json) printJson({ project: r.project, revoked: r.removed });
  else process.stdout.write(r.removed ? `revoked the trust in ${safeText(r.project, 500)}: its servers will not start\n` : `${safeText(r.project, 500)} was not trusted\n`);
  return 0;
}

async function list(json: boolean): Promise<number> {
  const projects = await listTrustedProjects(pathOptions());
  if (json) {
    printJson(projects.map((p) => ({ project: p.project, trusted_at: p.trustedAt, servers: p.servers.map((s) => ({ id: s.id, file: s.file })) })));
    return 0;
  }
  if (projects.length === 0) {
    process.stdout.write('no trusted projects\n');
    return 0;
  }
  const rows = projects.map((p) => [safeText(p.project, 200), safeText(p.trustedAt, 40), p.servers.map((s) => safeText(s.id, 64)).join(', ') || '(none)']);
  process.stdout.write(`${table(['project', 'trusted_at', 'servers'], rows)}\n`);
  return 0;
}
