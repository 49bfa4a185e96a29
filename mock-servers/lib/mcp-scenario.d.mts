/** Types for mcp-scenario.mjs, for TypeScript callers (HTTP mock, conformance runner, tests). */
import type { Scenario } from './default-scenario.mjs';
export type { Scenario } from './default-scenario.mjs';
export { DEFAULT_SCENARIO, resolveScenario } from './default-scenario.mjs';

export interface ScenarioIo {
  /** Writes one JSON-RPC message (object) or batch (array). */
  send(message: unknown): void;
  /** Writes one raw line (garbage, huge lines). */
  sendRaw(text: string): void;
  exit(code: number): void;
  stderr(text: string): void;
}

/** Per-message routing override, e.g. an HTTP request's own response stream. */
export interface MessageContext {
  send?: (message: unknown) => void;
  sendRaw?: (text: string) => void;
}

export interface ScenarioServer {
  /** Runs stderrNoise and behavior.onStart; false if the server exited. */
  start(): Promise<boolean>;
  handleMessage(message: unknown, ctx?: MessageContext): Promise<unknown>;
  /** Parses one line; answers -32700 on malformed JSON. */
  handleText(text: string, ctx?: MessageContext): Promise<unknown>;
  notify(method: string, params?: unknown, ctx?: MessageContext): void;
  request(method: string, params?: unknown, opts?: { signal?: AbortSignal; ctx?: MessageContext }): Promise<{ result?: unknown; error?: unknown }>;
  log(level: string, data: unknown, logger?: string, ctx?: MessageContext): boolean;
  resourceUpdated(uri: string, ctx?: MessageContext): boolean;
  readonly state: {
    phase: 'new' | 'initializing' | 'ready';
    protocolVersion: string | undefined;
    clientInfo: unknown;
    clientCapabilities: unknown;
    logLevel: string;
    subscriptions: Set<string>;
    violations: string[];
    /** notifications/roots/list_changed received. */
    rootsListChanged: number;
    /** The last roots/list answer fetched because of behavior.refetchRoots. */
    roots: unknown;
  };
  readonly capabilities: Record<string, unknown>;
}

export declare const DEFAULT_VERSIONS: string[];
export declare const LOG_LEVELS: string[];
export declare function createScenarioServer(scenario: Scenario | undefined, io: ScenarioIo): ScenarioServer;
export declare function hugeLine(bytes: number): string;
