/**
 * The environment variable that makes an entry script a one-shot child: apart from oneShot.ts
 * so that an entry can look at it before loading anything else.
 */
export const ONE_SHOT_ENV = 'PEAGEN_ONE_SHOT';

export function isOneShotChild(): boolean {
  return Boolean(process.env[ONE_SHOT_ENV]);
}
