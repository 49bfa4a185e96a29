/** Types for bugs.mjs: planted bug name → the check it breaks and the transports it applies to. */
/** `server: 'suite-mrtr'`: planted in suite-mrtr-server.mjs, not around the modern mock. */
export declare const BUGS: Record<string, { check: string; transports?: Array<'stdio' | 'http'>; server?: 'suite-mrtr' }>;
export declare function bugFrom(argv: string[], env: Record<string, string | undefined>): unknown;
/** The correct modern scenario the bugs are planted in (the default one with the tasks extension). */
export declare const SCENARIO: Record<string, unknown>;
