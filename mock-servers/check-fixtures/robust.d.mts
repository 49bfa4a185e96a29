// Types for robust.mjs (the robustness knobs of the check fixture).
/** Knob name → the id of the robustness check it is meant to break. */
export declare const ROBUST_BUGS: Record<string, string>;
