/**
 * The server could not be reached, or refused the credentials, on the first connect. Apart
 * from connect.ts so that the CLI can recognise it without loading ioredis.
 */
export class RedisConnectError extends Error {
  override name = 'RedisConnectError';
}
