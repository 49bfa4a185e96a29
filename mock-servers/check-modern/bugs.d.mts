/** Types for bugs.mjs: planted bug name → the check it breaks and the transports it applies to. */
export declare const BUGS: Record<string, { check: string; transports?: Array<'stdio' | 'http'> }>;
export declare function bugFrom(argv: string[], env: Record<string, string | undefined>): unknown;
