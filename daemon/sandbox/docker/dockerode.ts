/**
 * dockerode, loaded by endpoint.ts when an engine client is made (`await import('./dockerode')`).
 * Imported here statically rather than by `import('dockerode')` there: in the split ES-module
 * build a dynamic import of a CommonJS package yields only its `default` (evanw/esbuild#3245).
 */
export { default as Docker } from 'dockerode';
