/**
 * The `@anthropic-ai/sdk` SDK, loaded by AnthropicBackend at its first call (`await
 * import('./anthropicSdk')`). Imported here statically rather than by a dynamic import of the
 * package there: in the split ES-module build that would yield only the package's `default`
 * (evanw/esbuild#3245).
 */
export { default as Anthropic } from '@anthropic-ai/sdk';
