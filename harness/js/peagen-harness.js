'use strict';
/**
 * peagen-harness (Node): run an untrusted candidate program in its own locked-down process,
 * send it one input per call, and measure each call from OUTSIDE that process.
 *
 *   const harness = require('peagen-harness');
 *   const cand = await harness.Candidate.start('candidate.js', { entry: 'fib', callTimeoutMs: 2000 });
 *   const { output, type, wallNs, error } = await cand.call(27);   // output decoded here
 *   cand.close();
 *
 * What the candidate's process can do (see peagen-harness-child.js): compute. It runs in a
 * vm context of its own with no process, require (only an allow-list, empty by default),
 * module.parent, Function constructor or eval from strings, and the process itself is
 * started with Node's permission model: it can read no file but the runner, start no
 * process or worker. Its source is sent over a pipe. It cannot see or forge the protocol.
 *
 * How a call is timed: the round trip of the request that runs it, measured here with
 * process.hrtime.bigint(), minus the IPC cost: the median round trip of several echo
 * requests of the same request and reply size on the same child, made right after the
 * call. The arguments travel before that request (decoded and kept for the comparison
 * after it, running no code of the candidate's) and whether the call changed them is asked
 * after it, so reading a large input is not timed as the program's work (`untimedNs`).
 * A round trip shorter than half the fastest echo is physically impossible and is
 * rejected (ImplausibleTiming). Net times below `floorNs` (default 1 µs) cannot be resolved
 * and are reported as `floorNs` with `atFloor: true`. Nothing the child says about time is used.
 *
 * Caches: a Candidate keeps its process across calls, so a cache it keeps survives. For
 * timing, either start a fresh Candidate per timed call, or give every timed call an input
 * that no earlier call can have prepared (choose per benchmark; slow_fib_js does the former).
 */
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');

const CHILD = path.join(__dirname, 'peagen-harness-child.js');
/** The globals the child makes in the candidate's realm (console, text codecs); it reads this file too. */
const REALM_GLOBALS = path.join(__dirname, 'peagen-realm-globals.js');
/** The realm's Buffer, made by the build (scripts/build.mjs); the child compiles it in the realm. */
const REALM_BUFFER = path.join('generated', 'peagen-realm-buffer.js');
/** Runs a program with an empty environment (see Candidate's constructor). */
const CLEAN_ENV = '/usr/bin/env';
// Node's permission model: `--experimental-permission` until it became stable as
// `--permission` (22.13, 23.5); Node 24 knows only the new name, Node 20 only the old one. The
// child runs on this same binary (process.execPath), so this binary's own flags decide.
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux the sandboxes run

/** The candidate failed (crashed, hung, failed to load, was caught cheating): a verdict. */
class CandidateFailure extends Error {
  /**
   * `failedTests`: when the project's tests failed it, their ids (the verdict's failed_tests);
   * `originalPassedTests`: for the original, those it passes in the tests' own process.
   */
  constructor(message, failedTests = [], originalPassedTests = null) {
    super(message);
    this.failedTests = failedTests;
    this.originalPassedTests = originalPassedTests;
  }
}
/** A measurement no real execution can produce (e.g. an answer faster than an empty round trip). */
class ImplausibleTiming extends CandidateFailure {}
/** The evaluator itself could not work (e.g. the trusted reference failed): exit status 2. */
class EvaluatorError extends Error {}

// ------------------------------------------------------------------ small helpers
const now = () => process.hrtime.bigint();

function median(xs) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * A distribution-free 95% interval for the median of `xs` (the order statistics whose ranks a
 * binomial(n, 1/2) gives; harness/python/peagen_harness/timing.py's median_interval is the
 * same), or null for fewer than 6 values, which cannot give one.
 */
function medianInterval(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  let k = 0;
  let below = 0; // P(B <= k - 1) for B ~ binomial(n, 1/2), over 2^n
  let choose = 1; // C(n, k)
  while (k < n) {
    if (2 * (below + choose) / 2 ** n > 0.05) break;
    below += choose;
    choose = (choose * (n - k)) / (k + 1);
    k += 1;
  }
  return k === 0 ? null : [s[k - 1], s[n - k]];
}

/** Deterministic PRNG in [0, 1) for held-out inputs derived from --seed. */
function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------ the value wire format
/** A value of a type the wire cannot carry (function, symbol); `type` is its typeof. */
class Opaque {
  constructor(type) {
    this.type = type;
    Object.freeze(this);
  }
}

/**
 * `value` in the wire format. With `callbacks` (an array; the judge's side of the process
 * boundary), a function crosses as a handle: it is appended there, and the candidate's calls of
 * the handle come back to be run here (peagen-standin.js).
 */
function encodeWire(value, depth = 0, callbacks = null) {
  if (depth > 64) throw new RangeError('the input is nested deeper than 64 levels');
  const t = typeof value;
  if (value === null || t === 'boolean' || t === 'string') return value;
  if (t === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : { $: 'number', v: Object.is(value, -0) ? '-0' : String(value) };
  if (t === 'bigint') return { $: 'bigint', v: value.toString() };
  if (t === 'undefined') return { $: 'undefined' };
  if (Array.isArray(value)) {
    // Named properties of an array are part of it (range-parser's `ranges.type`), as the runner encodes them.
    const named = Object.keys(value).filter((key) => !(String(Number(key)) === key && Number(key) >= 0 && Number(key) < value.length && Number.isInteger(Number(key))));
    const v = value.map((x) => encodeWire(x, depth + 1, callbacks));
    return named.length > 0 ? { $: 'array', v, p: named.map((key) => [key, encodeWire(value[key], depth + 1, callbacks)]) } : { $: 'array', v };
  }
  if (value instanceof Map) return { $: 'map', v: [...value].map(([k, x]) => [encodeWire(k, depth + 1, callbacks), encodeWire(x, depth + 1, callbacks)]) };
  if (value instanceof Set) return { $: 'set', v: [...value].map((x) => encodeWire(x, depth + 1, callbacks)) };
  if (value instanceof RegExp) return { $: 'regexp', v: [value.source, value.flags] };
  if (value instanceof Date) return { $: 'date', v: Number.isFinite(value.getTime()) ? value.getTime() : null };
  // A typed array, a Buffer as one (the candidate's realm has a Buffer of its own): its kind and elements.
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const kind = Buffer.isBuffer(value) ? 'Buffer' : value[Symbol.toStringTag];
    return { $: 'typed', v: [kind, Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')] };
  }
  if (t === 'function' && callbacks !== null) return { $: 'callback', v: callbacks.push(value) - 1 };
  if (t === 'object') return { $: 'object', v: Object.entries(value).map(([k, x]) => [k, encodeWire(x, depth + 1, callbacks)]) };
  throw new TypeError(`an input of type ${t} cannot be sent to the candidate`);
}

const TYPED_ARRAYS = {
  __proto__: null, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array, Buffer,
};

function decodeWire(w) {
  if (w === null || typeof w !== 'object') return w;
  const v = w.v;
  switch (w.$) {
    case 'bigint':
      return BigInt(v);
    case 'undefined':
      return undefined;
    case 'number':
      return v === '-0' ? -0 : Number(v);
    case 'array': {
      const array = v.map(decodeWire);
      for (const [k, x] of Array.isArray(w.p) ? w.p : []) {
        if (typeof k === 'string' && !/^\d+$/.test(k)) Object.defineProperty(array, k, { value: decodeWire(x), writable: true, enumerable: true, configurable: true });
      }
      return array;
    }
    case 'map':
      return new Map(v.map(([k, x]) => [decodeWire(k), decodeWire(x)]));
    case 'set':
      return new Set(v.map(decodeWire));
    case 'regexp':
      if (!Array.isArray(v) || typeof v[0] !== 'string' || typeof v[1] !== 'string') throw new CandidateFailure("malformed regular expression in the candidate's reply");
      try {
        return new RegExp(v[0], v[1]);
      } catch {
        throw new CandidateFailure("malformed regular expression in the candidate's reply");
      }
    case 'date':
      if (v !== null && typeof v !== 'number') throw new CandidateFailure("malformed date in the candidate's reply");
      return new Date(v === null ? NaN : v);
    case 'object': {
      const o = {};
      for (const [k, x] of v) Object.defineProperty(o, k, { value: decodeWire(x), writable: true, enumerable: true, configurable: true });
      return o;
    }
    case 'typed': {
      const Kind = Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' ? TYPED_ARRAYS[v[0]] : undefined;
      const bytes = Kind === undefined ? null : Buffer.from(v[1], 'base64');
      if (bytes === null || bytes.length % Kind.BYTES_PER_ELEMENT !== 0) throw new CandidateFailure("malformed typed array in the candidate's reply");
      if (Kind === Buffer) return bytes;
      // A copy: a Buffer's bytes may sit in a shared pool at an offset the element size does not divide.
      return new Kind(new Uint8Array(bytes).buffer);
    }
    case 'opaque':
      return new Opaque(v);
    default:
      throw new CandidateFailure(`malformed reply from the candidate's process (tag ${w.$})`);
  }
}

// ------------------------------------------------------------------ timing arithmetic
/**
 * Net time of one request from its round trip and the echo round trips of the same size
 * measured right after it: rejects what cannot happen, clamps what cannot be resolved.
 * `fastestEchoNs` is the fastest empty round trip seen on the process so far: a reply does
 * everything an echo does and more, so one faster than a quarter of that is impossible
 * (a quarter, not the whole: on a loaded host single echoes vary several-fold).
 */
function netTime(roundTripNs, echoNs, floorNs = 1000, fastestEchoNs = Math.min(...echoNs)) {
  if (!(roundTripNs > 0) || roundTripNs < fastestEchoNs / 4) {
    throw new ImplausibleTiming(
      `implausible timing: the answer came back in ${(roundTripNs / 1000).toFixed(1)} µs, faster than a quarter of the ` +
        `fastest empty round trip on the same process (${(fastestEchoNs / 1000).toFixed(1)} µs); this measurement cannot come from running the program`,
    );
  }
  const ipcNs = median(echoNs);
  const net = roundTripNs - ipcNs;
  return { wallNs: Math.max(net, floorNs), ipcNs, atFloor: net < floorNs };
}

// ------------------------------------------------------------------ the candidate process
const ECHO_REPLY_OVERHEAD = '{"ok":true,"type":"string","mutated":false,"value":""}\n'.length;

function warningLine(line) {
  return /ExperimentalWarning|--trace-warnings|^\s*$/.test(line);
}

/**
 * The JavaScript a program file runs as: TypeScript (.ts, .mts, .cts) with its types stripped
 * by Node (module.stripTypeScriptTypes: erasable syntax only, positions kept), else the source.
 * TypeScript that is more than erasable types (a constructor's parameter properties, as
 * path-to-regexp's classes have; an enum, a namespace) is transformed instead: Node writes the
 * JavaScript they stand for, on lines of its own (an error's line number may then be off).
 */
function programSource(file, source) {
  if (!/\.(c|m)?ts$/i.test(file)) return source;
  const { stripTypeScriptTypes } = require('module');
  if (typeof stripTypeScriptTypes !== 'function') throw new Error(`TypeScript needs Node.js 22.13 or later (this is ${process.version})`);
  const warn = process.emitWarning;
  process.emitWarning = () => {}; // its ExperimentalWarning says nothing to a user
  try {
    try {
      return elideTypeOnlyImports(stripTypeScriptTypes(source, { mode: 'strip' }));
    } catch (err) {
      if (!err || err.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw err;
      return elideTypeOnlyImports(stripTypeScriptTypes(source, { mode: 'transform' }));
    }
  } finally {
    process.emitWarning = warn;
  }
}

const NAMED_IMPORT = /^([ \t]*)import\s*\{([^}]*)\}\s*from\s*(['"][^'"\n]+['"])[ \t]*;?/gm;

/**
 * TypeScript's import elision, which Node's type stripping leaves out: a name imported without
 * `type` but used only as a type (`import { HsvaColor } from '../types'`, as tsc, ts-jest and
 * esbuild accept) is not exported at run time, and importing it fails. Such names are dropped,
 * and the import with them when none is left; the text keeps its lines and length.
 */
function elideTypeOnlyImports(code) {
  return code.replace(NAMED_IMPORT, (whole, indent, list, from, offset) => {
    const rest = code.slice(0, offset) + code.slice(offset + whole.length);
    const specifiers = list.split(',').map((item) => item.trim()).filter((item) => item !== '');
    const kept = specifiers.filter((item) => {
      const local = item.split(/\s+as\s+/).pop().trim();
      return !/^[A-Za-z_$][\w$]*$/.test(local) || new RegExp(`(?<![\\w$.])${local.replace(/\$/g, '\\$')}(?![\\w$])`).test(rest);
    });
    if (kept.length === specifiers.length) return whole;
    const text = kept.length === 0 ? '' : `${indent}import { ${kept.join(', ')} } from ${from};`;
    const lines = whole.split('\n').length - 1;
    return text.padEnd(whole.length - lines, ' ') + '\n'.repeat(lines);
  });
}

/** One untrusted program in its own process; see the file comment. */
class Candidate {
  /**
   * @param {string} program path of the program file (read here, sent to the child)
   * @param {object} [options]
   * @param {string} [options.entry='default'] exported function to call
   * @param {string[]} [options.allow=[]] modules the program may require/import: builtins, or
   *   packages of the example's package.json
   *   (each one hands the program objects of the runner's realm: keep it empty if you can)
   * @param {number} [options.callTimeoutMs=5000] per call; the process is killed after it
   * @param {number} [options.loadTimeoutMs=10000] process start plus loading the program
   * @param {number} [options.echoSamples=5] echo round trips measured per timed request
   * @param {number} [options.floorNs=1000] smallest net time that can be resolved
   * @param {boolean} [options.trusted=false] failures are the evaluator's own (EvaluatorError)
   * @param {number} [options.heapMb] the process's heap limit: past it, it ends (a failure) before
   *   it can fill the sandbox's memory, which would end the whole evaluation
   * @param {string} [options.label] how errors name this program
   * @param {string} [options.packages] a node_modules folder the allowed packages are required
   *   from (default: PEAGEN_ENV_NODE_MODULES, the example's own package.json)
   * @param {object} [options.modules] the project's modules the program may import by relative
   *   path, from projectModules(): they are sent with the program and linked in its realm
   */
  static async start(program, options = {}) {
    const label = options.label || (options.trusted ? 'the reference' : 'the candidate');
    let source;
    try {
      source = fs.readFileSync(program, 'utf8');
    } catch (err) {
      throw new (options.trusted ? EvaluatorError : CandidateFailure)(`cannot read ${label} (${program}): ${err.message}`);
    }
    try {
      source = programSource(program, source);
    } catch (err) {
      throw new (options.trusted ? EvaluatorError : CandidateFailure)(`${label} (${path.basename(program)}) is TypeScript that cannot be run: ${err.message}`);
    }
    const candidate = new Candidate(source, path.basename(program), { ...options, label });
    try {
      await candidate.load();
    } catch (err) {
      candidate.close();
      throw err;
    }
    return candidate;
  }

  constructor(source, filename, options) {
    this.source = source;
    this.filename = filename;
    this.modules = options.modules && Object.keys(options.modules.links || {}).length > 0 ? options.modules : null;
    this.entry = options.entry === null ? null : options.entry || 'default'; // null: every export, called by name
    this.detached = options.detached !== false;
    this.allow = [...(options.allow || [])];
    this.callTimeoutMs = options.callTimeoutMs || 5000;
    this.loadTimeoutMs = options.loadTimeoutMs || 10000;
    this.echoSamples = options.echoSamples || 5;
    this.floorNs = options.floorNs ?? 1000;
    this.trusted = Boolean(options.trusted);
    this.label = options.label;
    this.heapMb = Number.isInteger(options.heapMb) && options.heapMb > 0 ? options.heapMb : null;
    /** Net time of loading the program (compiling it and running its top level), in ns. */
    this.loadNs = null;
    this.fastestEchoNs = Infinity;
    this.lines = [];
    this.waiter = null;
    this.closed = false;
    this.stderrTail = '';
    this.exitInfo = null;

    let childPath = CHILD;
    try {
      childPath = fs.realpathSync(CHILD);
    } catch {
      /* use as is */
    }
    // The example's installed packages (its package.json), which Peagen names in
    // PEAGEN_ENV_NODE_MODULES: the child may read them and require the allowed ones from there.
    // options.packages: the project's own node_modules (its tests' dependencies), read-only.
    const packages = options.packages || process.env.PEAGEN_ENV_NODE_MODULES || '';
    // Through `env -i` where there is one: a test runner's spawn hook (tap's process-on-spawn,
    // nyc's spawn-wrap) adds its loaders to the child's NODE_OPTIONS, which the permission
    // model then refuses to read. `env -i` starts node with nothing in its environment.
    const [command, prefix] = fs.existsSync(CLEAN_ENV) ? [CLEAN_ENV, ['-i', process.execPath]] : [process.execPath, []];
    this.proc = childProcess.spawn(
      command,
      [
        ...prefix,
        '--disallow-code-generation-from-strings',
        PERMISSION_FLAG,
        `--allow-fs-read=${childPath}`,
        `--allow-fs-read=${path.join(path.dirname(childPath), path.basename(REALM_GLOBALS))}`,
        `--allow-fs-read=${path.join(path.dirname(childPath), REALM_BUFFER)}`,
        ...(packages ? [`--allow-fs-read=${path.join(packages, '*')}`] : []),
        '--experimental-vm-modules',
        // The runner's own realm frozen: a candidate that reaches it (an allowed built-in module
        // is a function of that realm; so is an error thrown inside the runner's loader) cannot
        // hook what the runner does outside the timed request (an attack put a toJSON getter on
        // its Object.prototype and answered the timed call from a cache filled there: 142x).
        '--frozen-intrinsics',
        ...(this.heapMb ? [`--max-old-space-size=${this.heapMb}`] : []),
        '--no-warnings',
        childPath,
        JSON.stringify(this.allow),
        packages,
      ],
      // detached: a process group of its own, killed whole; the process boundary's children
      // stay in the judge's group instead, so that the test runner's group kill reaches them.
      { stdio: ['pipe', 'ignore', 'pipe', 'pipe'], detached: this.detached, env: {} },
    );
    this.pid = this.proc.pid;
    // The pieces of the reply being read, none holding a newline, joined once it ends: a string
    // grown by += and searched after each chunk is copied whole on every search (quadratic in
    // a reply of many megabytes).
    let parts = [];
    const replies = this.proc.stdio[3];
    replies.setEncoding('utf8');
    replies.on('data', (chunk) => {
      const at = now();
      let start = 0;
      let k;
      while ((k = chunk.indexOf('\n', start)) >= 0) {
        parts.push(chunk.slice(start, k));
        this.lines.push({ line: parts.join(''), at });
        parts = [];
        start = k + 1;
      }
      if (start < chunk.length) parts.push(chunk.slice(start));
      this.wake();
    });
    replies.on('error', () => {});
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
    this.proc.on('exit', (code, signal) => {
      this.exitInfo = signal ? `killed by signal ${signal}` : `exit status ${code}`;
    });
    this.proc.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.proc.on('error', (err) => {
      this.exitInfo = `could not start: ${err.message}`;
      this.closed = true;
      this.wake();
    });
    this.proc.stdin.on('error', () => {});
  }

  failure(message) {
    return new (this.trusted ? EvaluatorError : CandidateFailure)(this.trusted ? `${this.label}: ${message}` : message);
  }

  wake() {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }

  /** Sends one request; resolves with its parsed reply and round trip in ns. */
  async request(message, timeoutMs, what) {
    if (this.closed) throw this.failure(`the program's process is gone (${this.exitInfo || 'closed'})`);
    const line = `${JSON.stringify(message)}\n`;
    const sent = now();
    this.proc.stdin.write(line);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.lines.length) {
        const { line: text, at } = this.lines.shift();
        let reply;
        try {
          reply = JSON.parse(text);
        } catch {
          throw this.failure("malformed reply from the program's process");
        }
        return { reply, roundTripNs: Number(at - sent), requestChars: line.length, replyChars: text.length + 1 };
      }
      if (this.closed) {
        const tail = this.stderrTail
          .split('\n')
          .filter((l) => !warningLine(l))
          .join('\n')
          .trim()
          .slice(-600);
        throw this.failure(`the program's process ended while ${what} (${this.exitInfo || 'closed'})${tail ? `: ${tail}` : ''}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        this.close();
        throw this.failure(`timeout: no answer within ${(timeoutMs / 1000).toFixed(1)} s while ${what}`);
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Round trips of `echoSamples` echo requests of the given request and reply sizes. */
  async echoes(requestChars, replyChars, timeoutMs) {
    const base = JSON.stringify({ op: 'echo', chars: Math.max(0, replyChars - ECHO_REPLY_OVERHEAD), pad: '' }).length + 1;
    const pad = 'p'.repeat(Math.max(0, requestChars - base));
    const message = { op: 'echo', chars: Math.max(0, replyChars - ECHO_REPLY_OVERHEAD), pad };
    const samples = [];
    for (let i = 0; i < this.echoSamples; i += 1) {
      samples.push((await this.request(message, timeoutMs, 'answering an echo')).roundTripNs);
    }
    this.fastestEchoNs = Math.min(this.fastestEchoNs, ...samples);
    return samples;
  }

  async load() {
    const message = { op: 'load', source: this.source, filename: this.filename, entry: this.entry, ...(this.modules && { project: this.modules }) };
    const requestChars = JSON.stringify(message).length + 1;
    // The first echo waits for the process to start; the next ones are the IPC baseline.
    await this.request({ op: 'echo', chars: 0, pad: '' }, this.loadTimeoutMs, 'starting');
    const echoNs = await this.echoes(requestChars, '{"ok":true}\n'.length, this.loadTimeoutMs);
    const { reply, roundTripNs } = await this.request(message, this.loadTimeoutMs, 'loading the program');
    if (!reply.ok) throw this.failure(`the program failed to load: ${reply.error}`);
    try {
      this.loadNs = netTime(roundTripNs, echoNs, 0, this.fastestEchoNs).wallNs;
    } catch (err) {
      throw this.failure(err.message);
    }
  }

  /**
   * Calls the entry function with `args` (JSON-like values, BigInt, undefined, Map, Set, RegExp, Date).
   * @returns {Promise<{output: any, type: string, error: string|null, mutated: boolean,
   *   wallNs: number, roundTripNs: number, ipcNs: number, atFloor: boolean, untimedNs: number}>}
   *   `type` is typeof the value in the candidate's process; `error` is set when the call
   *   threw (output is then undefined); `mutated` when the call changed its arguments. Crashes and timeouts throw CandidateFailure.
   */
  async call(...args) {
    // Only the call is timed: the arguments are read before it and compared after it, each in
    // a request of its own (see the runner's prepare).
    const prepareNs = await this.prepare({ args: args.map((a) => encodeWire(a)) });
    const result = await this.timed({ op: 'call' });
    const { reply, roundTripNs } = await this.request({ op: 'changed' }, this.callTimeoutMs, 'comparing the arguments');
    if (!reply.ok) throw this.failure(`malformed reply from the candidate's process: ${reply.error}`);
    return { ...result, mutated: reply.mutated === true, argumentsAfter: typeof reply.after === 'string' ? reply.after : null, untimedNs: prepareNs + roundTripNs };
  }

  /** Sends the arguments of the next call or batch; returns that request's round trip. */
  async prepare(what) {
    const { reply, roundTripNs } = await this.request({ op: 'prepare', ...what }, this.callTimeoutMs, 'reading the arguments');
    if (!reply.ok) throw this.failure(`the arguments could not be read: ${reply.error}`);
    return roundTripNs;
  }

  /**
   * Calls the entry function once per argument list of `calls`, in one request: a function
   * too quick to time one call at a time is timed over many. Answers as call() does, with
   * `output` the list of the answers; a call that throws makes `error` the batch's. With
   * `{ settle: true }` each answer is only whether that call returned (no error for a throw),
   * and with `maxNs` too whether it took no longer than that.
   */
  async callBatch(calls, { settle = false, maxNs } = {}) {
    const prepareNs = await this.prepare({ calls: calls.map((args) => args.map((a) => encodeWire(a))) });
    return { ...(await this.timed({ op: 'batch', settle, ...(settle && Number.isFinite(maxNs) && { maxNs }) })), untimedNs: prepareNs };
  }

  /** One request, timed from here net of the echoes of its size. */
  async timed(message) {
    const { reply, roundTripNs, requestChars, replyChars } = await this.request(message, this.callTimeoutMs, 'computing');
    const echoNs = await this.echoes(requestChars, replyChars, this.callTimeoutMs);
    let timing;
    try {
      timing = netTime(roundTripNs, echoNs, this.floorNs, this.fastestEchoNs);
    } catch (err) {
      throw this.failure(err.message);
    }
    const result = { output: undefined, type: reply.type, error: null, mutated: reply.mutated === true, roundTripNs, ...timing };
    if (!reply.ok) {
      result.error = String(reply.error);
      result.thrown = typeof reply.thrown === 'string' ? reply.thrown : null; // 'error', 'object', 'string'…
    }
    else result.output = decodeWire(reply.value);
    return result;
  }

  /** CPU time (user + system, all threads) the process has used so far, in ns; null if unknown. */
  cpuNs() {
    try {
      const stat = fs.readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * (1e9 / CLOCK_TICKS_PER_SECOND);
    } catch {
      return null;
    }
  }

  close() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      try {
        if (!this.detached) throw new Error('not a group of its own');
        process.kill(-this.proc.pid, 'SIGKILL');
      } catch {
        try {
          this.proc.kill('SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
  }
}

// ------------------------------------------------------------------ timing schedule
/**
 * Interleaved timing: `measure(which, round)` returns one time in ns for 'reference' or
 * 'candidate'; the two alternate which goes first. speedup = median over rounds of the
 * paired ratio reference/candidate (load changes on a busy host cancel within a pair).
 */
async function timeInterleaved(rounds, measure) {
  const referenceNs = [];
  const candidateNs = [];
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? ['reference', 'candidate'] : ['candidate', 'reference'];
    for (const which of order) (which === 'reference' ? referenceNs : candidateNs).push(await measure(which, r));
  }
  const ratios = referenceNs.map((ref, i) => ref / candidateNs[i]);
  return { referenceNs, candidateNs, speedup: median(ratios), speedupOfMedians: median(referenceNs) / median(candidateNs) };
}

// ------------------------------------------------------------------ untimed work
/**
 * Of the reference's timed call: bounds what moving work out of the timed call can gain to
 * 1/0.75, or the spread of the reference's own untimed CPU when starting a process varies
 * more than that (a loaded machine: tens of ms beside a call of a few).
 */
const OUTSIDE_WORK_TOLERANCE = 0.25;
/** CPU outside the timed calls below this is noise (clock ticks are 10 ms). */
const HIDDEN_CPU_MIN_NS = 250e6;

/**
 * A candidate that moves work out of its timed call (into loading or warm-up) is charged for
 * it, round by round, beyond the reference's median untimed CPU and what the measurement
 * cannot tell apart: the larger of a share of the reference's timed call and the spread
 * (max - min) of the reference's own untimed CPU. Charging start-up noise made an unchanged
 * program score 0.25x on a loaded machine; only the reference's spread counts, so a candidate
 * cannot widen it, and every round that precomputed is charged. One whose process burns CPU
 * where nothing is timed (threads, workers, children) is rejected.
 * `runs.{candidate,reference}`: per round { timedNs, outsideNs, wallNs, cpuNs }. Returns the
 * candidate's charged time per round and the reference's median time outside its timed calls
 * (its load and warm-up: a metric worth showing).
 */
function chargeUntimedWork(runs, referenceTimedNs) {
  const refTimed = median(referenceTimedNs);
  const refOutside = median(runs.reference.map((r) => r.outsideNs));
  const spread = Math.max(...runs.reference.map((r) => r.outsideNs)) - Math.min(...runs.reference.map((r) => r.outsideNs));
  const allowance = refOutside + Math.max(OUTSIDE_WORK_TOLERANCE * refTimed, spread);
  const charged = runs.candidate.map((r) => r.timedNs + Math.max(0, r.outsideNs - allowance));
  const hidden = (rs) => median(rs.map((r) => (r.cpuNs === null ? 0 : Math.max(0, r.cpuNs - r.wallNs))));
  const extraCpuNs = hidden(runs.candidate) - hidden(runs.reference);
  if (runs.candidate.every((r) => r.cpuNs !== null) && extraCpuNs > Math.max(HIDDEN_CPU_MIN_NS, 4 * median(runs.candidate.map((r) => r.wallNs)))) {
    reject(`the candidate's process used ${(extraCpuNs / 1e6).toFixed(0)} ms more CPU outside its measured calls than the reference's: work done where it is not timed`);
  }
  return { charged, referenceOutsideNs: refOutside };
}

// ------------------------------------------------------------------ the verdict line
/** At most this many failing tests' ids in a verdict (as peagen_harness.verdict). */
const FAILED_TESTS_LIMIT = 1000;

/** Rejects the candidate with `message` (ends runEvaluator with correct=false). */
function reject(message) {
  throw new CandidateFailure(message);
}

/**
 * Runs `main(metrics)` and prints the one JSON verdict line as the last line of stdout:
 * main returns { objective, originalPassedTests? } (correct) or throws CandidateFailure (via reject(), a failed
 * call, a timeout...) for correct=false with exit 0; anything else is an evaluator error
 * (exit 2). `metrics` is the object main fills; it is always printed.
 */
async function runEvaluator(main, { direction = 'maximize' } = {}) {
  const metrics = {};
  const started = now();
  let line;
  let status = 0;
  try {
    const { objective, originalPassedTests } = await main(metrics);
    if (typeof objective !== 'number' || !Number.isFinite(objective)) throw new EvaluatorError(`objective ${objective} is not a finite number`);
    line = { correct: true, objective, direction, metrics };
    // The seed's tests, which init lists (whole, or not at all, as peagen_harness.verdict).
    if (Array.isArray(originalPassedTests) && originalPassedTests.length <= FAILED_TESTS_LIMIT) line.original_passed_tests = originalPassedTests;
  } catch (err) {
    if (err instanceof CandidateFailure) {
      line = { correct: false, objective: 0, direction, metrics, error: err.message };
      if (err.failedTests.length > 0) line.failed_tests = err.failedTests.slice(0, FAILED_TESTS_LIMIT);
      // Whole, or not at all (as peagen_harness.verdict).
      if (Array.isArray(err.originalPassedTests) && err.originalPassedTests.length <= FAILED_TESTS_LIMIT) line.original_passed_tests = err.originalPassedTests;
    }
    else {
      status = 2;
      line = { correct: false, objective: 0, direction, metrics, error: `evaluator error: ${err && err.message}` };
    }
  }
  metrics.eval_seconds = Math.round(Number(now() - started) / 1e6) / 1000;
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(status));
}

/**
 * The project's modules the trusted original imports by relative path (see
 * peagen-project-modules.js), for Candidate.start's `modules`: `referenceSource` is the
 * original's text, `programFile` the program's place in the project.
 */
function projectModules(referenceSource, programFile) {
  return require('./peagen-project-modules.js').projectModules(programSource(programFile, referenceSource), programFile, programSource);
}

module.exports = {
  programSource,
  projectModules,
  Candidate,
  CandidateFailure,
  ImplausibleTiming,
  EvaluatorError,
  Opaque,
  timeInterleaved,
  chargeUntimedWork,
  runEvaluator,
  reject,
  median,
  medianInterval,
  mulberry32,
  netTime,
  encodeWire,
  decodeWire,
};
