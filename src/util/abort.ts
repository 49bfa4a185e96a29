/**
 * `p`, or the signal's reason as soon as it aborts: a handler that ignores its signal does not hold
 * the request that awaits it. The abort listener is removed either way. Imports nothing: every
 * layer may use it.
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // the handler itself may have aborted it, synchronously, before this listens
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const aborted = (): void => reject(signal.reason);
    signal.addEventListener('abort', aborted, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', aborted);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(err);
      },
    );
  });
}
