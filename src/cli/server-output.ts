/**
 * What an ad-hoc server printed when it failed to start (`connectAdHoc` in target.ts attaches it
 * to the error; `reportFailure` prints it). A module of its own: the config commands report
 * failures too and do not load the client.
 */

/** An error of `connectAdHoc`: what the server printed, lines shown under the error's own line. */
export interface ServerOutput {
  serverOutput?: string;
}

/** The lines `connectAdHoc` attached to a failure (`reportFailure` prints them), or undefined. */
export function serverOutputOf(err: unknown): string | undefined {
  const v = err instanceof Error ? (err as ServerOutput).serverOutput : undefined;
  return typeof v === 'string' ? v : undefined;
}
