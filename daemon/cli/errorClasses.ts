/**
 * The errors main.ts tells apart once a command has failed, gathered in one module it loads
 * only then (a command that threw one of them has loaded its module already). Imported here
 * statically: in the split ES-module build a dynamic import of a CommonJS package (the
 * JSON-RPC library) would yield only its `default` (evanw/esbuild#3245).
 */
export { ResponseError } from 'vscode-languageserver-protocol/node';
export { ConfigError } from '../config';
export { RedisConnectError } from '../fabric/queue/redis/connectError';
export { QueueKeyError } from '../fabric/queue/redis/badKey';
export { DaemonUnavailableError } from '../rpc/client';
export { DamagedRunError } from '../evolution/controller/runDir';
