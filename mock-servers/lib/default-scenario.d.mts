/** Types for default-scenario.mjs (the runtime stays plain JavaScript). */
export type Scenario = Record<string, any>;
export declare const DEFAULT_SCENARIO: Scenario;
export declare function resolveScenario(scenario: Scenario | undefined, load: (name: string) => Scenario): Scenario;
