/**
 * Runs the battery: checks in a fixed order (lifecycle first, aggregates last), one at a time,
 * each bounded by a guard timeout; probes a check opened are closed when it ends; every spawned
 * server is closed before the report is returned.
 */
import { excerpt } from '../jsonrpc/types.js';
import type { ServerConfig } from '../transport/create.js';
import { capabilityChecks } from './capabilities.js';
import { CheckContext, type CheckOptions } from './context.js';
import { httpChecks } from './http.js';
import { httpStreamChecks } from './http-streams.js';
import { robustnessChecks } from './robustness.js';
import { jsonrpcChecks } from './jsonrpc.js';
import { lifecycleChecks } from './lifecycle.js';
import { paginationChecks } from './pagination.js';
import { resourcePromptChecks } from './resources-prompts.js';
import { toolChecks } from './tools.js';
import { trafficChecks } from './traffic.js';
import { BlockedError, type CheckDef, type CheckReport, type CheckResult, type CheckSummary, type Verdict } from './types.js';
import { utilityChecks } from './utilities.js';
import { aggregateChecks } from './aggregates.js';
import { resourcePromptAggregates } from './resources-prompts.js';
import { stdioRawChecks } from './stdio-raw.js';
import { taskChecks } from './tasks.js';
import { elicitationChecks } from './elicitation.js';
import { expectationChecks } from './expectations.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/** Every check, in run order. */
export const ALL_CHECKS: readonly CheckDef[] = [
  ...lifecycleChecks,
  ...jsonrpcChecks,
  ...capabilityChecks,
  ...paginationChecks,
  ...toolChecks,
  ...resourcePromptChecks,
  ...expectationChecks,
  ...taskChecks,
  ...elicitationChecks,
  ...utilityChecks,
  ...stdioRawChecks,
  ...httpChecks,
  ...httpStreamChecks,
  // Only with --robustness (selectChecks).
  ...robustnessChecks,
  // Aggregates last; the ones that claim parts of messages before schema.strict (in trafficChecks).
  ...aggregateChecks,
  ...resourcePromptAggregates,
  ...trafficChecks,
];

export interface RunOptions extends Partial<CheckOptions> {
  /** Check ids, group prefixes (`tools`, `lifecycle.version-echo`) or clause prefixes (`basic.transports`, `server.tools#14`); default: all. */
  only?: string[];
  /** Like `only`, but leaves these out. */
  skip?: string[];
  /** Also run the robustness battery (`--robustness`: hostile but well-framed inputs). */
  robustness?: boolean;
  /** Called as each result is known (progress output). */
  onResult?: (r: CheckResult) => void;
}

/** The checks a name selects: an id, a group prefix (`tools`), or a clause / clause prefix (`basic.transports`, `server.tools#14`). */
function matching(name: string): CheckDef[] {
  const hits = ALL_CHECKS.filter((c) => c.id === name || c.id.startsWith(`${name}.`) || c.clause === name || c.clause.startsWith(name));
  if (hits.length === 0) throw new Error(`no check or clause named "${name}" (see mcpwire check --list)`);
  return hits;
}

/** The checks `only` selects minus those `skip` names (robustness ones only with `robustness`); throws on a name matching nothing. */
export function selectChecks(only: string[] | undefined, skip: string[] = [], robustness = false): CheckDef[] {
  const picked = new Set<CheckDef>(only === undefined || only.length === 0 ? ALL_CHECKS : only.flatMap(matching));
  for (const name of skip) for (const c of matching(name)) picked.delete(c);
  return ALL_CHECKS.filter((c) => picked.has(c) && (robustness || c.robustness !== true));
}

export function targetName(t: ServerConfig): string {
  return t.transport === 'stdio' ? [t.command, ...(t.args ?? [])].join(' ') : t.url;
}

export async function runChecks(target: ServerConfig, options: RunOptions = {}): Promise<CheckReport> {
  const started = performance.now();
  const ctx = new CheckContext(target, {
    timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
    ...(options.slowTool ? { slowTool: options.slowTool } : {}),
    ...(options.cancelRunMs !== undefined ? { cancelRunMs: options.cancelRunMs } : {}),
    ...(options.closeOnExit === true ? { closeOnExit: true } : {}),
    ...(options.fixtures !== undefined ? { fixtures: options.fixtures } : {}),
    ...(options.expectations !== undefined ? { expectations: options.expectations } : {}),
    ...(options.allowCalls === true ? { allowCalls: true } : {}),
    ...(options.authProvider !== undefined ? { authProvider: options.authProvider } : {}),
  });
  const kind = target.transport === 'stdio' ? 'stdio' : 'http';
  const results: CheckResult[] = [];
  try {
    for (const check of selectChecks(options.only, options.skip, options.robustness === true)) {
      // Aggregates judge recorded traffic: make sure there is some (when run alone via --only).
      if (check.aggregate && ctx.traffic.records.length === 0) await ctx.session().catch(() => undefined);
      const r = check.transport !== undefined && check.transport !== kind
        ? toResult(check, { status: 'skip', detail: `not applicable: ${check.transport} only` }, 0)
        : await runOne(ctx, check);
      results.push(r);
      options.onResult?.(r);
    }
  } finally {
    await ctx.closeAll();
  }
  const init = ctx.firstSession?.init;
  const initResult = init?.kind === 'result' ? init.result : undefined;
  return {
    target: targetName(target),
    ...(typeof initResult?.protocolVersion === 'string' ? { protocolVersion: initResult.protocolVersion } : {}),
    ...(ctx.firstSession?.serverInfo ? { serverInfo: { name: ctx.firstSession.serverInfo.name, version: ctx.firstSession.serverInfo.version } } : {}),
    results,
    summary: summarize(results),
    durationMs: Math.round(performance.now() - started),
  };
}

async function runOne(ctx: CheckContext, check: CheckDef): Promise<CheckResult> {
  const t0 = performance.now();
  const guardMs = Math.max(60_000, ctx.timeoutMs * 6);
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<Verdict>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'violated', detail: `the check did not finish within ${guardMs} ms` }), guardMs);
  });
  let verdict: Verdict;
  let errored: string | undefined;
  try {
    verdict = await Promise.race([check.run(ctx), guard]);
  } catch (err) {
    if (err instanceof BlockedError) verdict = { status: 'skip', detail: err.message };
    else {
      verdict = { status: 'skip', detail: '' };
      errored = `checker error: ${(err as Error)?.message ?? String(err)}`;
    }
  } finally {
    clearTimeout(timer);
    await ctx.releaseProbes();
  }
  const r = toResult(check, verdict, performance.now() - t0);
  return errored !== undefined ? { ...r, status: 'error', detail: errored } : r;
}

export function toResult(check: CheckDef, v: Verdict, ms: number): CheckResult {
  const base = { id: check.id, title: check.title, clause: check.clause, level: check.level, durationMs: Math.round(ms) };
  if (v.status !== 'violated') return { ...base, status: v.status, ...(v.detail ? { detail: v.detail } : {}) };
  const level = v.level ?? check.level;
  const clause = v.clause ?? check.clause;
  const evidence = v.evidence === undefined ? undefined : excerpt(typeof v.evidence === 'string' ? v.evidence : (JSON.stringify(v.evidence) ?? String(v.evidence)), 400);
  return {
    ...base,
    clause,
    level,
    status: level === 'MUST' ? 'fail' : 'warn',
    detail: `${clause} (${level}): ${v.detail}`,
    ...(evidence !== undefined ? { evidence } : {}),
  };
}

export function summarize(results: CheckResult[]): CheckSummary {
  const s: CheckSummary = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0 };
  for (const r of results) s[r.status]++;
  return s;
}
