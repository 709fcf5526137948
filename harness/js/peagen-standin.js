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
 *   node peagen-standin.js --names FILE   prints the names FILE exports (loaded in the child),
 *                                         for an ES-module stand-in whose exports are static.
 */
const path = require('path');
const { Worker, receiveMessageOnPort } = require('worker_threads');
const { CandidateFailure, Opaque, decodeWire, encodeWire } = require('./peagen-harness.js');

const WORKER = path.join(__dirname, 'peagen-standin-worker.js');
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
  } else if (target instanceof Map && value instanceof Map) {
    target.clear();
    for (const [k, v] of value) target.set(k, v);
  } else if (target instanceof Set && value instanceof Set) {
    target.clear();
    for (const v of value) target.add(v);
  } else if (target !== null && typeof target === 'object' && value !== null && typeof value === 'object') {
    for (const key of Object.keys(target)) delete target[key];
    Object.assign(target, value);
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
    if (Atomics.wait(this.flag, 0, 0, timeoutMs + WORKER_MARGIN_MS) === 'timed-out') {
      this.worker.terminate();
      throw new CandidateFailure(`timeout: the candidate's process did not answer within ${(timeoutMs / 1000).toFixed(1)} s`);
    }
    const answer = receiveMessageOnPort(this.port);
    if (!answer) throw new CandidateFailure("the candidate's process gave no answer");
    if (!answer.message.ok) throw new CandidateFailure(answer.message.failure);
    return answer.message.reply;
  }
}

function forwarder(connection, name) {
  const timeoutMs = connection.config.callTimeoutMs;
  const forward = function (...args) {
    let wires;
    try {
      wires = args.map((a) => encodeWire(a));
    } catch (err) {
      throw new TypeError(`${name || 'the function'}() runs in a process of its own and its arguments must be plain data: ${err.message}`);
    }
    const reply = connection.request({ op: 'invoke', name, args: wires }, timeoutMs);
    if (reply === null || typeof reply !== 'object') throw new CandidateFailure("the candidate's process answered garbage");
    for (const [key, wire] of Object.entries(reply.changed || {})) {
      if (/^\d+$/.test(key) && Number(key) < args.length) updateInPlace(args[Number(key)], plain(wire, 'a changed argument'));
    }
    if (!reply.ok) throw new (ERRORS[reply.name] || Error)(String(reply.error).slice(0, 2000));
    return plain(reply.value, `the result of ${name}()`);
  };
  Object.defineProperty(forward, 'name', { value: name || 'default' });
  return forward;
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

module.exports = { standin };

if (require.main === module && process.argv[2] === '--names') {
  // The names a module exports, for an ES-module stand-in (its exports are static).
  const api = standin({ candidate: path.resolve(process.argv[3]), allow: JSON.parse(process.argv[4] || '[]'), callTimeoutMs: 10_000, loadTimeoutMs: 30_000 });
  process.stdout.write(`${JSON.stringify(Object.keys(api))}\n`);
  process.exit(0);
}
