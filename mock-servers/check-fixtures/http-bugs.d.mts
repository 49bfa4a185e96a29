export declare const HTTP_BUGS: Record<string, string>;
