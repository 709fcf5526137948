'use strict';
/*
 * The process boundary for JavaScript judges (a project's `node --test` suite): a stand-in
 * module whose functions forward each call, synchronously, to the candidate running in its
 * own locked-down process (peagen-harness-child.js: its own vm realm, no process, no
 * require, no files). Peagen writes the stand-in where the project's file was:
 *
 *   module.exports = require('/peagen-harness/peagen-standin.js').standin({ candidate, allow, ... });
 *
 * Calls are synchronous for the judge, as the real module's were: a worker thread of ours
 * (peagen-standin-worker.js) talks to the child while this thread waits on a shared flag
 * (Atomics.wait) and then takes the reply with receiveMessageOnPort. Only plain data crosses
 * (decodeWire builds it here, in the judge's realm, from JSON); the candidate's exceptions
 * arrive as the built-in Error of the same name; arrays, objects, Maps and Sets a call
 * changed in place are changed in the caller too. What cannot cross: functions passed as
 * arguments, classes and objects with behaviour, promises.
 *
 * standinOf(original, config) is the stand-in that IS the user's module: the trusted original,
 * loaded in the judge, with only its evolved functions forwarded; an exception the candidate
 * raises arrives as the original's exported error class of that name.
 *
 *   node peagen-standin.js --names FILE   prints the names FILE exports (loaded in the child),
 *                                         for an ES-module stand-in whose exports are static.
 */
const path = require('path');
const { Worker, receiveMessageOnPort } = require('worker_threads');
const { CandidateFailure, Opaque, decodeWire, encodeWire } = require('./peagen-harness.js');

const WORKER = path.join(__dirname, 'peagen-standin-worker.js');
// A monotonic clock taken at load, from the module, not the global: the tests' fake timers
// (jest's, sinon's) replace Date.now and performance.now, and a frozen clock never reaches a deadline.
const { performance: clock } = require('perf_hooks');
const now = clock.now.bind(clock);
const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
/** Time the worker gets beyond the child's own call timeout before this thread gives up. */
const WORKER_MARGIN_MS = 2000;

/** Plain data from the wire, refusing what could not be rebuilt here (functions, symbols). */
function plain(wire, what) {
  const value = decodeWire(wire);
  const opaque = (v, depth) => {
    if (v instanceof Opaque) return true;
    if (depth > 64 || v === null || typeof v !== 'object') return false;
    const items = v instanceof Map ? [...v].flat() : v instanceof Set ? [...v] : Object.values(v);
    return items.some((x) => opaque(x, depth + 1));
  };
  if (opaque(value, 0)) throw new TypeError(`${what} holds a function or symbol, which cannot cross the process boundary`);
  return value;
}

function updateInPlace(target, value) {
  if (Array.isArray(target) && Array.isArray(value)) {
    target.length = 0;
    target.push(...value);
  } else if (ArrayBuffer.isView(target) && ArrayBuffer.isView(value) && !(target instanceof DataView) && target.length === value.length) {
    target.set(value); // a typed array's elements (its length is fixed; its indices cannot be deleted)
  } else if (target instanceof Map && value instanceof Map) {
    target.clear();
    for (const [k, v] of value) target.set(k, v);
  } else if (target instanceof Set && value instanceof Set) {
    target.clear();
    for (const v of value) target.add(v);
  } else if (target !== null && typeof target === 'object' && value !== null && typeof value === 'object') {
    for (const key of Object.keys(target)) delete target[key];
    // Own data properties only: a key named __proto__ is a property, never the object's prototype.
    for (const key of Object.keys(value)) Object.defineProperty(target, key, { value: value[key], writable: true, enumerable: true, configurable: true });
  }
}

class Connection {
  constructor(config) {
    this.config = config;
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER, { workerData: { flag: this.flag, port: port2, config }, transferList: [port2], stdout: true, stderr: true });
    this.worker.unref(); // the judge ends when its tests do; the child then reads the end of its pipe
    this.port.unref();
  }

  request(message, timeoutMs) {
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(message);
    // A wake-up is not an answer: the worker posts, sets the flag, then notifies, so the notify
    // of a request whose flag this thread saw before it waited can land during the next wait
    // (minimist's thousands of calls on a busy machine: "gave no answer"). The flag alone says so.
    const deadline = now() + timeoutMs + WORKER_MARGIN_MS;
    while (Atomics.load(this.flag, 0) === 0) {
      const left = deadline - now();
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === 'timed-out') {
        this.worker.terminate();
        throw new CandidateFailure(`timeout: the candidate's process did not answer within ${(timeoutMs / 1000).toFixed(1)} s`);
      }
    }
    const answer = receiveMessageOnPort(this.port);
    if (!answer) throw new CandidateFailure("the candidate's process gave no answer");
    if (!answer.message.ok) throw new CandidateFailure(answer.message.failure);
    return answer.message.reply;
  }
}

function forwarder(connection, name, errorClasses = {}) {
  const timeoutMs = connection.config.callTimeoutMs;
  const forward = function (...args) {
    let wires;
    const callbacks = []; // the judge's functions among the arguments (an option's hook, a comparator)
    try {
      wires = args.map((a) => encodeWire(a, 0, callbacks));
    } catch (err) {
      throw new TypeError(`${name || 'the function'}() runs in a process of its own and its arguments must be plain data: ${err.message}`);
    }
    const deadline = now() + timeoutMs;
    let reply = connection.request({ op: 'invoke', name, args: wires }, timeoutMs);
    while (reply !== null && typeof reply === 'object' && reply.callback !== undefined && reply.ok === undefined) {
      // The candidate calls one of them: it runs here, in the judge, on plain data only.
      const answer = runCallback(callbacks, reply);
      const left = deadline - now();
      if (left <= 0) {
        connection.worker.terminate();
        throw new CandidateFailure(`timeout: ${name || 'the function'}() did not finish within ${(timeoutMs / 1000).toFixed(1)} s`);
      }
      reply = connection.request({ op: 'answer', answer }, left);
    }
    if (reply === null || typeof reply !== 'object') throw new CandidateFailure("the candidate's process answered garbage");
    logHere(reply.printed);
    for (const [key, wire] of Object.entries(reply.changed || {})) {
      if (/^\d+$/.test(key) && Number(key) < args.length) updateInPlace(args[Number(key)], plain(wire, 'a changed argument'));
    }
    if (!reply.ok) throw judgeError(reply, errorClasses);
    return plain(reply.value, `the result of ${name}()`);
  };
  Object.defineProperty(forward, 'name', { value: name || 'default' });
  return forward;
}

/** One call the candidate makes of a judge's function it was given: its answer or its error, as plain data. */
function runCallback(callbacks, request) {
  const index = request.callback;
  if (!Number.isInteger(index) || index < 0 || index >= callbacks.length || !Array.isArray(request.args)) {
    throw new CandidateFailure("the candidate's process called back with garbage");
  }
  const args = request.args.map((wire) => plain(wire, "a callback's argument"));
  let result;
  try {
    result = Reflect.apply(callbacks[index], undefined, args);
  } catch (err) {
    return { ok: false, name: err && typeof err.name === 'string' ? err.name : 'Error', message: String(err && err.message !== undefined ? err.message : err).slice(0, 2000) };
  }
  try {
    return { ok: true, value: encodeWire(result, 0, callbacks) };
  } catch (err) {
    return { ok: false, name: 'TypeError', message: `the answer of a function of the tests cannot cross the process boundary: ${err.message}` };
  }
}

/** The exception the judge sees: the original module's error class of the candidate's
 * error's name (its tests' `assert.throws(..., RangeParserError)`), else the built-in one,
 * else Error; built with the candidate's message. */
/** The console methods a call's log lines come back under (peagen-harness-child.js realmGlobals). */
const LOG_METHODS = new Set(['log', 'info', 'debug', 'warn', 'error']);

/**
 * What the call logged in the candidate's process, logged here, on the tests' own console (a
 * test that spies on console.log, or captures stdout, judges the candidate's lines): text only,
 * one line per call it made, under the method it called.
 */
function logHere(printed) {
  if (!Array.isArray(printed)) return;
  for (const entry of printed.slice(0, 100_000)) {
    if (Array.isArray(entry) && LOG_METHODS.has(entry[0]) && typeof entry[1] === 'string') console[entry[0]](entry[1]);
  }
}

function judgeError(reply, errorClasses) {
  const name = String(reply.name);
  const Own = Object.prototype.hasOwnProperty.call(errorClasses, name) ? errorClasses[name] : undefined;
  const Cls = Own || (Object.prototype.hasOwnProperty.call(ERRORS, name) ? ERRORS[name] : Error);
  const message = (typeof reply.message === 'string' ? reply.message : String(reply.error)).slice(0, 2000);
  try {
    return new Cls(message);
  } catch {
    return new Error(String(reply.error).slice(0, 2000));
  }
}

/** The error classes a module exports (a CommonJS exports object or function, an ES namespace), by name. */
function errorClassesOf(original) {
  const found = {};
  const look = (value) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
    for (const key of Object.keys(value)) {
      const own = Object.getOwnPropertyDescriptor(value, key);
      const v = own && 'value' in own ? own.value : undefined;
      if (typeof v === 'function' && v.prototype instanceof Error) found[v.name || key] = v;
    }
  };
  look(original);
  if (original && typeof original === 'object') look(original.default);
  return found;
}

/**
 * The stand-in for a trusted original module: the original's exports (classes, error types,
 * constants, helpers), with only the evolved functions forwarded to the candidate. `evolved`
 * names them (a function's own name: an export of that name, or module.exports / the default
 * export when that is the function); null: every exported function. Internal calls inside the
 * original still reach its own functions (a JavaScript binding cannot be replaced from outside).
 */
function standinOf(loaded, config) {
  const original = dataSnapshot(loaded);
  const connection = new Connection(config);
  connection.request({ op: 'load' }, config.loadTimeoutMs);
  const errorClasses = errorClassesOf(original);
  // A class is never forwarded (`new` of a forwarder would not build it), an error class least of all.
  const isClass = (value) => /^class[\s{]/.test(Function.prototype.toString.call(value));
  let evolved = Array.isArray(config.evolved) ? config.evolved : null;
  // An evolved helper the module does not export (minimist's isNumber) is reached through the
  // exported functions that call it: they are forwarded, each running the candidate's helper.
  // Only where the evaluator also compares the helper's own answers with the original's (the
  // gate of speed and score): the candidate's block could reassign those exported functions
  // too, and the tests alone (objective tests) would judge its functions, not the original's.
  if (evolved !== null && !exportsAny(original, evolved, isClass)) {
    if (config.evolvedMustBeExported) {
      // (Worded to say nothing of the boundary: the tests' own process would run the candidate's module whole.)
      throw new Error(`Peagen cannot judge ${evolved.join(', ')}() with the tests alone: the module does not export it, and its exported functions would be the candidate's; evolve an exported function, or use the speed objective, which compares ${evolved.join(', ')}()'s own answers with the original's`);
    }
    evolved = null;
  }
  let forwarded = 0;
  const isEvolved = (key, value) => {
    const yes = typeof value === 'function' && !isClass(value) && !(value.prototype instanceof Error) &&
      (evolved === null || evolved.includes(key) || evolved.includes(value.name));
    if (yes) forwarded++;
    return yes;
  };
  // An exported object that holds an evolved function (`export default { f }`, `exports.api =
  // { f }`): a copy whose member forwards to the candidate's `holder.f`.
  const isPlainObject = (value) => value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value));
  const holding = (key, value) => {
    if (!isPlainObject(value) || key === '') return undefined;
    const descriptors = Object.getOwnPropertyDescriptors(value);
    if (!Object.entries(descriptors).some(([name, d]) => 'value' in d && typeof d.value === 'function' && evolved !== null && evolved.includes(name) && !isClass(d.value))) return undefined;
    const copy = Object.create(Object.getPrototypeOf(value));
    for (const [name, descriptor] of Object.entries(descriptors)) {
      Object.defineProperty(copy, name, 'value' in descriptor && isEvolved(name, descriptor.value) ? { ...descriptor, value: forwarder(connection, `${key}.${name}`, errorClasses) } : descriptor);
    }
    return copy;
  };
  const own = (value) => (value !== null && (typeof value === 'object' || typeof value === 'function') ? Object.getOwnPropertyDescriptors(value) : {});
  const wrap = (value, key) => {
    const descriptors = own(value);
    const base = isEvolved(key, value) ? forwarder(connection, key === 'default' ? 'default' : '', errorClasses) : null;
    const hasEvolved = Object.entries(descriptors).some(([name, descriptor]) => 'value' in descriptor && typeof descriptor.value === 'function' &&
      !isClass(descriptor.value) && (evolved === null || evolved.includes(name) || evolved.includes(descriptor.value.name)));
    // `module.exports = fn` with an evolved `fn.helper`: a function like fn that carries the forwarder.
    if (base === null && typeof value === 'function' && !hasEvolved) return value;
    const api = base ?? (typeof value === 'function' ? function (...args) { return Reflect.apply(value, this, args); } : Object.create(Object.getPrototypeOf(value) ?? null));
    for (const [name, descriptor] of Object.entries(descriptors)) {
      if (['length', 'name', 'prototype', 'arguments', 'caller'].includes(name) && typeof api === 'function') continue;
      const held = 'value' in descriptor ? holding(name, descriptor.value) : undefined;
      if ('value' in descriptor && isEvolved(name, descriptor.value)) {
        Object.defineProperty(api, name, { ...descriptor, value: forwarder(connection, name, errorClasses) });
      } else if (held !== undefined) {
        Object.defineProperty(api, name, { ...descriptor, value: held });
      } else {
        Object.defineProperty(api, name, descriptor);
      }
    }
    return api;
  };
  let api;
  if (original !== null && typeof original === 'object' && Object.prototype.toString.call(original) === '[object Module]') {
    // An ES module's namespace: its named exports and default, each forwarded when evolved.
    api = {};
    for (const name of Object.keys(original)) {
      const value = original[name];
      api[name] = isEvolved(name, value) ? forwarder(connection, name, errorClasses) : holding(name, value) ?? value;
    }
  } else {
    api = wrap(original, '');
  }
  // Never the original judged in the candidate's place: a module exporting no function forwards
  // nothing, and the tests would only check the original.
  if (forwarded === 0) {
    throw new Error(`Peagen cannot judge ${(config.evolved || []).join(', ') || 'the program'}() behind the process boundary: the module exports no function (process of its own)`);
  }
  return api;
}

/**
 * The original's exports with its accessors read once (a namespace a test runner builds, as
 * vitest's module runner does, exposes each export through a getter): the original is trusted,
 * and only its own getters run. A real ES namespace, a function or an object without accessors
 * is itself (a real namespace's exports are data properties).
 */
function dataSnapshot(original) {
  if (original === null || typeof original !== 'object') return original;
  const descriptors = Object.getOwnPropertyDescriptors(original);
  if (!Object.values(descriptors).some((d) => typeof d.get === 'function')) return original;
  const copy = Object.create(Object.getPrototypeOf(original));
  for (const [key, d] of Object.entries(descriptors)) {
    let value = d;
    try {
      if (typeof d.get === 'function') value = { value: original[key], writable: true, enumerable: d.enumerable, configurable: true };
    } catch {
      // a getter that throws stays a getter, as the original has it
    }
    Object.defineProperty(copy, key, value);
  }
  return copy;
}

/** Whether the module (namespace or module.exports) exports a function under one of `names`, itself or as a property. */
function exportsAny(original, names, isClass) {
  const isNamed = (key, value) => typeof value === 'function' && !isClass(value) && (names.includes(key) || names.includes(value.name));
  if (isNamed('', original)) return true;
  const anyMember = (value, depth) =>
    value !== null && (typeof value === 'object' || typeof value === 'function') &&
    Object.entries(Object.getOwnPropertyDescriptors(value)).some(([key, d]) => 'value' in d && (isNamed(key, d.value) || (depth === 0 && d.value !== null && typeof d.value === 'object' && anyMember(d.value, 1))));
  // An exported function, or a function of an exported object (`export default { f }`).
  return anyMember(original, 0);
}

/** The stand-in's exports: forwarders for the candidate's functions, copies of its plain data. */
function standin(config) {
  const connection = new Connection(config);
  const described = connection.request({ op: 'load' }, config.loadTimeoutMs);
  const names = described && typeof described.names === 'object' && described.names !== null ? described.names : {};
  const api = names['']?.kind === 'function' ? forwarder(connection, '') : {};
  for (const [name, what] of Object.entries(names)) {
    if (name === '' || what === null || typeof what !== 'object') continue;
    if (what.kind === 'function') api[name] = forwarder(connection, name);
    else if (what.kind === 'value') api[name] = plain(what.value, `the export ${name}`);
  }
  return api;
}

module.exports = { standin, standinOf };

if (require.main === module && process.argv[2] === '--names') {
  // The names a module exports, for an ES-module stand-in (its exports are static).
  const api = standin({ candidate: path.resolve(process.argv[3]), allow: JSON.parse(process.argv[4] || '[]'), callTimeoutMs: 10_000, loadTimeoutMs: 30_000 });
  process.stdout.write(`${JSON.stringify(Object.keys(api))}\n`);
  process.exit(0);
}
