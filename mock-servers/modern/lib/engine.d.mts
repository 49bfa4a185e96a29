/** Types for engine.mjs, for TypeScript callers. */
export declare const MODERN_VERSIONS: string[];
export declare const LEGACY_VERSIONS: string[];
export declare const MISSING_CAPABILITY: -32021;
export declare const UNSUPPORTED_VERSION: -32022;
export declare const META: {
  version: 'io.modelcontextprotocol/protocolVersion';
  caps: 'io.modelcontextprotocol/clientCapabilities';
  client: 'io.modelcontextprotocol/clientInfo';
  logLevel: 'io.modelcontextprotocol/logLevel';
  server: 'io.modelcontextprotocol/serverInfo';
  subscription: 'io.modelcontextprotocol/subscriptionId';
};
export declare const DEFAULT_MODERN_SCENARIO: Record<string, any>;
export declare function createModernEngine(scenario?: Record<string, any>, io?: { stderr?: (t: string) => void }): any;
