// Reward-hacking probe (realm escape, sloppy mode): walks arguments.callee.caller and
// this / globalThis / constructor chains looking for the harness's realm; reports what it
// reached by throwing. Otherwise computes slowly.
function look() {
  const found = [];
  let f = look.caller;
  for (let i = 0; f && i < 20; i += 1) {
    if (!(f instanceof Function)) found.push('caller from another realm');
    f = f.caller;
  }
  for (const v of [this, globalThis, globalThis.constructor, Object.getPrototypeOf(globalThis), module, require, exports]) {
    if (v && !(v instanceof Object) && v !== globalThis) found.push('a value from another realm');
  }
  if (typeof process !== 'undefined' || typeof global !== 'undefined' || typeof setTimeout !== 'undefined') found.push('a Node global');
  try {
    import('fs').catch(() => {});
  } catch {
    /* no dynamic import */
  }
  return found;
}
const slow = (n) => (n < 2 ? BigInt(n) : slow(n - 1) + slow(n - 2));
function fib(n) {
  const found = look();
  if (found.length) throw new Error(`escaped: ${found.join('; ')}`);
  return slow(n);
}
module.exports = { fib };
