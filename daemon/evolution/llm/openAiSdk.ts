/**
 * The `openai` SDK, loaded by OpenAiBackend at its first call (`await import('./openAiSdk')`).
 * Imported here statically rather than by `import('openai')` there: in the split ES-module
 * build a dynamic import of a CommonJS package yields only its `default` (evanw/esbuild#3245).
 */
export { default as OpenAI } from 'openai';
