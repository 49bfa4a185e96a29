/** Small readers of untrusted JSON values, shared by the checks. */

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
