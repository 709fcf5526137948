/** Replaced at build time by esbuild's `define`; the fallback serves unbundled test runs. */
declare const PEAGEN_VERSION: string | undefined;
export const VERSION: string = typeof PEAGEN_VERSION === 'string' ? PEAGEN_VERSION : '0.0.0-dev';
