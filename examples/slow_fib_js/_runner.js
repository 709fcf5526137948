'use strict';
/*
 * Trusted child process used by evaluate.js to run ONE program (candidate or reference).
 * Not meant to be run by hand.
 *
 * argv: node _runner.js <program.js>
 * stdin (read completely BEFORE the program is loaded):
 *   {"nonce": "<hex>", "calls": [{"n": int, "timed": bool}, ...]}
 * fd 3 (results; one JSON line each, every line carries the nonce):
 *   {"nonce", "event": "ready"} | {"nonce", "event": "load_error", "error"}
 *   {"nonce", "i", "ok": bool, "value": "<decimal>"|null, "type": "<typeof>", "error"?, "ns": int}
 * fd 1 is /dev/null (set by the parent), so whatever the program prints is dropped.
 * The nonce is known only to this harness and the parent, so lines the program might
 * write to fd 3 itself are rejected. All verdicts are made by the parent.
 */

// Capture everything we rely on BEFORE the untrusted module is loaded.
const fs = require('fs');
const url = require('url');
const writeSync = fs.writeSync;
const readFileSync = fs.readFileSync;
const hrtime = process.hrtime.bigint;
const stringify = JSON.stringify;
const parse = JSON.parse;
const NumberCtor = Number;
const StringCtor = String;
const ReflectApply = Reflect.apply;
const pathToFileURL = url.pathToFileURL;

function describe(err) {
  try {
    if (err && typeof err === 'object' && typeof err.stack === 'string') {
      const head = `${err.name}: ${err.message}`;
      const stack = StringCtor(err.stack).split('\n').filter((l) => !l.startsWith(head)).slice(0, 5);
      return [head, ...stack].join('\n').slice(0, 1500);
    }
    return `${err}`.slice(0, 1500);
  } catch {
    return 'an unprintable exception';
  }
}

async function main() {
  const program = process.argv[2];
  const job = parse(readFileSync(0, 'utf8'));
  const nonce = job.nonce;
  const calls = job.calls;
  const send = (obj) => {
    obj.nonce = nonce;
    writeSync(3, stringify(obj) + '\n');
  };

  let fib;
  try {
    let mod;
    try {
      mod = require(program);
    } catch (err) {
      if (!err || err.code !== 'ERR_REQUIRE_ESM') throw err;
      mod = await import(pathToFileURL(program).href);
    }
    if (typeof mod === 'function') fib = mod;
    else if (mod && typeof mod.fib === 'function') fib = mod.fib;
    else if (mod && mod.default && typeof mod.default.fib === 'function') fib = mod.default.fib;
    else if (mod && typeof mod.default === 'function') fib = mod.default;
    else throw new TypeError('the program does not export a function fib(n) (module.exports = { fib })');
  } catch (err) {
    send({ event: 'load_error', error: describe(err) });
    return;
  }
  send({ event: 'ready' });

  for (let i = 0; i < calls.length; i += 1) {
    const n = calls[i].n;
    let value;
    let error = null;
    const t0 = hrtime();
    try {
      value = ReflectApply(fib, undefined, [n]);
    } catch (err) {
      error = err;
    }
    const t1 = hrtime();
    const reply = { i, ok: error === null, value: null, type: typeof value, ns: NumberCtor(t1 - t0) };
    if (error !== null) {
      reply.type = 'exception';
      reply.error = describe(error);
    } else if (typeof value === 'bigint') {
      reply.value = `${value}`; // ToString of a primitive: cannot be intercepted
    }
    send(reply);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    try {
      process.stderr.write(`runner failure: ${describe(err)}\n`);
    } finally {
      process.exit(70);
    }
  },
);
