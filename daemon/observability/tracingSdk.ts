/**
 * The tracing SDK and its OTLP exporter, which tracing.ts loads (`await import('./tracingSdk')`)
 * only when an endpoint is configured. The packages are imported here, statically, rather
 * than by `import('@opentelemetry/...')` there: in the split ES-module build a dynamic import
 * of a CommonJS package yields only its `default` (evanw/esbuild#3245), while a module of ours
 * keeps its named exports.
 */
export { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
export { resourceFromAttributes } from '@opentelemetry/resources';
export { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
