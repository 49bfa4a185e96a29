/**
 * Runs the battery: checks in a fixed order (lifecycle first, aggregates last), one at a time,
 * each bounded by a guard timeout; probes a check opened are closed when it ends; every spawned
 * server is closed before the report is returned.
 */
import { excerpt } from '../../jsonrpc/types.js';
import type { ServerConfig } from '../../transport/create.js';
import { capabilityChecks } from '../basics/capabilities.js';
import { CheckContext, type CheckOptions } from '../core/context.js';
import { httpChecks } from '../http/http.js';
import { httpStreamChecks } from '../http/http-streams.js';
import { robustnessChecks } from '../robustness/robustness.js';
import { jsonrpcChecks } from '../basics/jsonrpc.js';
import { lifecycleChecks } from '../basics/lifecycle.js';
import { paginationChecks } from '../basics/pagination.js';
import { resourcePromptChecks } from '../features/resources-prompts.js';
import { toolChecks } from '../features/tools.js';
import { appsChecks } from '../features/apps.js';
import { trafficChecks } from '../basics/traffic.js';
import { BlockedError, isNotApplicable, type CheckDef, type CheckReport, type CheckResult, type CheckSummary, type Verdict } from '../core/types.js';
import { utilityChecks } from '../basics/utilities.js';
import { aggregateChecks } from '../basics/aggregates.js';
import { resourcePromptAggregates } from '../features/resources-prompts.js';
import { stdioRawChecks } from '../basics/stdio-raw.js';
import { taskChecks } from '../features/tasks.js';
import { elicitationChecks } from '../features/elicitation.js';
import { expectationChecks } from '../features/expectations.js';
import { chooseEra, handshakeAnswer, initializeRefusal, type EraVerdict } from './era.js';
import { applies, HANDSHAKE_REVISIONS, NEWEST_HANDSHAKE, SPOKEN_VERSIONS } from '../core/revisions.js';
import { modernAggregates, modernChecks } from '../modern/modern.js';
import { modernMrtrChecks } from '../modern/modern-mrtr.js';
import { modernMrtrAnswerChecks } from '../modern/modern-mrtr-answers.js';
import { modernMrtrSingleChecks } from '../modern/modern-mrtr-single.js';
import { modernHttpChecks } from '../modern/modern-http.js';
import { isObject } from '../core/context.js';
import { META_SERVER_INFO } from '../core/modern-wire.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/** The checks of the handshake era (≤ 2025-11-25): their revisions stated here, once. */
const handshake = (checks: readonly CheckDef[]): CheckDef[] => checks.map((c) => ({ ...c, revisions: c.revisions ?? HANDSHAKE_REVISIONS }));

/** Every check, in run order. */
export const ALL_CHECKS: readonly CheckDef[] = [
  ...modernChecks,
  ...modernMrtrChecks,
  ...modernMrtrAnswerChecks,
  ...modernMrtrSingleChecks,
  ...modernHttpChecks,
  ...handshake([
  ...lifecycleChecks,
  ...jsonrpcChecks,
  ...capabilityChecks,
  ...paginationChecks,
  ...toolChecks,
  ...appsChecks,
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
  ]),
  ...modernAggregates,
];

export interface RunOptions extends Partial<CheckOptions> {
  /** Check ids, group prefixes (`tools`, `lifecycle.version-echo`) or clause prefixes (`basic.transports`, `server.tools#14`); default: all. */
  only?: string[];
  /** Like `only`, but leaves these out. */
  skip?: string[];
  /** Also run the robustness battery (`--robustness`: hostile but well-framed inputs). */
  robustness?: boolean;
  /** Every version the server claims, one report each (runAllVersions). */
  allVersions?: boolean;
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
    ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
  });
  const results: CheckResult[] = [];
  let era: EraVerdict | undefined;
  try {
    era = await chooseEra(ctx, options.protocolVersion);
    ctx.era = era.era;
    ctx.version = era.version;
    ctx.discover = era.discover;
    if (era.refused === undefined && era.era === 'handshake' && !ctx.isHttp) {
      // the session the lifecycle checks open first anyway: a -32022 to it is a refused version
      await ctx.session().catch(() => undefined);
      const refused = initializeRefusal(ctx, options.protocolVersion ?? NEWEST_HANDSHAKE);
      if (refused !== undefined) era = { ...era, supported: refused.supported, refused };
    }
    if (era.refused === undefined) await runAll(ctx, options, results);
  } finally {
    await ctx.closeAll();
  }
  return { ...reportHead(ctx, era), results, summary: summarize(results), durationMs: Math.round(performance.now() - started) };
}

async function runAll(ctx: CheckContext, options: RunOptions, results: CheckResult[]): Promise<void> {
  const kind = ctx.target.transport === 'stdio' ? 'stdio' : 'http';
  const version = ctx.era === 'modern' ? ctx.version : options.protocolVersion;
  for (const check of selectChecks(options.only, options.skip, options.robustness === true)) {
    // Aggregates judge recorded traffic: all of it, so the probes still closing end first.
    if (check.aggregate) await ctx.settle();
    // Aggregates judge recorded traffic: make sure there is some (when run alone via --only).
    if (check.aggregate && ctx.era === 'handshake' && ctx.traffic.records.length === 0) await ctx.session().catch(() => undefined);
    const revisions = check.revisions ?? HANDSHAKE_REVISIONS;
    const r = !applies(revisions, ctx.era, version)
      ? toResult(check, { status: 'skip', detail: `not applicable: ${revisionsText(revisions)} only; the server is checked at ${version ?? `the ${ctx.era} era`}` }, 0)
      : check.transport !== undefined && check.transport !== kind
        ? toResult(check, { status: 'skip', detail: `not applicable: ${check.transport} only` }, 0)
        : await runOne(ctx, check);
    results.push(r);
    options.onResult?.(r);
  }
}

async function handshakeAnswerOf(target: ServerConfig, options: RunOptions): Promise<string | undefined> {
  const ctx = new CheckContext(target, { timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, ...(options.authProvider !== undefined ? { authProvider: options.authProvider } : {}), ...(options.closeOnExit === true ? { closeOnExit: true } : {}) });
  try {
    return await handshakeAnswer(ctx);
  } finally {
    await ctx.closeAll();
  }
}

/** `2026-07-28`, or `2024-11-05 … 2025-11-25` for a run of versions. */
export function revisionsText(revisions: readonly string[]): string {
  const sorted = [...revisions].sort();
  return sorted.length > 2 ? `${sorted[0]} … ${sorted[sorted.length - 1]}` : sorted.join(', ');
}

/** What a report says about the target: era, version, the versions the server claims, who it is. */
function reportHead(ctx: CheckContext, era: EraVerdict | undefined): Omit<CheckReport, 'results' | 'summary' | 'durationMs'> {
  const init = ctx.firstSession?.init;
  const initResult = init?.kind === 'result' ? init.result : undefined;
  const answered = typeof initResult?.protocolVersion === 'string' ? initResult.protocolVersion : undefined;
  const version = ctx.era === 'modern' ? ctx.version : (answered ?? era?.refused?.requested);
  const claimed = era !== undefined && era.supported.length > 0 ? era.supported : answered !== undefined ? [answered] : undefined;
  const modernInfo = isObject(ctx.discover?._meta) ? ctx.discover._meta[META_SERVER_INFO] : undefined;
  const info = ctx.era === 'modern' ? (isObject(modernInfo) ? modernInfo : undefined) : ctx.firstSession?.serverInfo;
  return {
    target: targetName(ctx.target),
    era: ctx.era,
    ...(version !== undefined ? { protocolVersion: version } : {}),
    ...(claimed !== undefined ? { supportedVersions: claimed } : {}),
    ...(era?.refused !== undefined ? { refused: era.refused } : {}),
    ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
  };
}

/**
 * `--all-versions`: the run of the version the server would be spoken to at, then one run per
 * other version it claims (server/discover's list; initialize's answer) that mcpwire speaks.
 */
export async function runAllVersions(target: ServerConfig, options: RunOptions = {}): Promise<CheckReport[]> {
  const first = await runChecks(target, options);
  const reports = [first];
  const claimed = new Set(first.supportedVersions ?? []);
  // a modern server may speak the handshake era too without listing it: ask initialize
  if (first.era === 'modern' && ![...claimed].some((v) => HANDSHAKE_REVISIONS.includes(v))) {
    const answered = await handshakeAnswerOf(target, options);
    if (answered !== undefined) claimed.add(answered);
  }
  const others = [...claimed].filter((v) => SPOKEN_VERSIONS.includes(v) && v !== first.protocolVersion);
  for (const v of others) reports.push(await runChecks(target, { ...options, protocolVersion: v }));
  return reports;
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
    ctx.releaseProbesLater();
  }
  // what the checks share goes on only after a check that passed or did not apply
  ctx.checkEnded(errored === undefined && (verdict.status === 'pass' || isNotApplicable(verdict)));
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
