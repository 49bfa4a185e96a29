/**
 * The vocabulary of `mcpwire check`: a check enforces one spec clause and returns a verdict;
 * the runner turns verdicts into results (MUST violated → failure, SHOULD violated → warning).
 */
import type { CheckContext } from './context.js';

/** The keyword of the clause a check enforces (clauses-2025-11-25.md), or of the rule it applies. */
export type Level = 'MUST' | 'SHOULD';

/** pass; fail (a MUST violated); warn (a SHOULD violated); skip (not applicable / blocked); error (checker problem). */
export type Status = 'pass' | 'fail' | 'warn' | 'skip' | 'error';

export interface CheckDef {
  /** Stable id, `<group>.<name>`, usable with `--only`. */
  id: string;
  title: string;
  /** Clause id from clauses-2025-11-25.md (`basic.lifecycle#9`), or another rule (`jsonrpc-2.0 §5.1`). */
  clause: string;
  level: Level;
  /**
   * The protocol revisions the check applies to (`check --list` shows them); a run at another
   * version reports it not applicable. The runner gives the handshake-era checks ≤ 2025-11-25.
   */
  revisions?: readonly string[];
  /** Runs only against this kind of target. */
  transport?: 'stdio' | 'http';
  /** Part of the `--robustness` battery: runs only when asked for. */
  robustness?: boolean;
  /** Runs after every other check, over all the traffic recorded during the run. */
  aggregate?: boolean;
  run(ctx: CheckContext): Promise<Verdict>;
}

export type Verdict =
  | { status: 'pass'; detail?: string }
  | { status: 'skip'; detail: string }
  | {
      status: 'violated';
      detail: string;
      /** The offending message (or value); rendered as a bounded, escaped excerpt. */
      evidence?: unknown;
      /** When one outcome of a check is only a SHOULD (or cites another clause). */
      level?: Level;
      clause?: string;
    };

export interface CheckResult {
  id: string;
  title: string;
  clause: string;
  level: Level;
  status: Status;
  /** Why: for failures and warnings names the clause and says what was seen. */
  detail?: string;
  /** Bounded, single-line excerpt of the offending message. */
  evidence?: string;
  durationMs: number;
}

export interface CheckSummary {
  pass: number;
  fail: number;
  warn: number;
  skip: number;
  error: number;
}

export interface CheckReport {
  target: string;
  /** The era checked: `handshake` (initialize, ≤ 2025-11-25) or `modern` (2026-07-28, stateless). */
  era?: 'handshake' | 'modern';
  protocolVersion?: string;
  /** The versions the server claims (server/discover's list, a -32022's `supported`, initialize's answer). */
  supportedVersions?: string[];
  /** The server refused the version asked for: nothing was checked. */
  refused?: { requested: string; supported: string[]; detail: string };
  serverInfo?: { name?: unknown; version?: unknown };
  results: CheckResult[];
  summary: CheckSummary;
  durationMs: number;
}

export const pass = (detail?: string): Verdict => (detail === undefined ? { status: 'pass' } : { status: 'pass', detail });
export const skip = (detail: string): Verdict => ({ status: 'skip', detail });
export const notApplicable = (why: string): Verdict => ({ status: 'skip', detail: `not applicable: ${why}` });
/** Whether a verdict (or result) is a `notApplicable` one: the other era's or transport's check, not a blocked one. */
export const isNotApplicable = (v: { status: string; detail?: string }): boolean => v.status === 'skip' && (v.detail ?? '').startsWith('not applicable');
export function violated(detail: string, evidence?: unknown, extra: { level?: Level; clause?: string } = {}): Verdict {
  return { status: 'violated', detail, ...(evidence !== undefined ? { evidence } : {}), ...extra };
}

export { BlockedError } from './blocked.js';
