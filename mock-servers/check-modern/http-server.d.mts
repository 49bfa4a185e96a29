/** Types for http-server.mjs (the modern HTTP mock behind a bug-planting proxy), for TypeScript tests. */
export interface CheckModernHttp {
  url: string;
  close(): Promise<void>;
}
export declare function startCheckModernHttp(options?: { bug?: string }): Promise<CheckModernHttp>;
