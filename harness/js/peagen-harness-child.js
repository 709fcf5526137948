'use strict';
/*
 * The trusted child runner of peagen-harness (started by peagen-harness.js; not meant to be
 * run by hand). It hosts ONE untrusted program and answers one request at a time.
 *
 * Started as
 *   node --disallow-code-generation-from-strings --permission (--experimental-permission before Node 22.13)
 *        --allow-fs-read=<this file> --allow-fs-read=<peagen-realm-globals.js>
 *        --allow-fs-read=<generated/peagen-realm-buffer.js> [--allow-fs-read=<packages>/*]
 *        --experimental-vm-modules
 *        peagen-harness-child.js <allow-list JSON> [<packages: the example's node_modules>]
 * so the process can read nothing but this file, start no process or worker, and no code in
 * it can turn a string into code. The candidate's source arrives over the request pipe.
 *
 * Requests arrive on fd 0, replies leave on fd 3, one JSON object per line each:
 *   {"op":"load","source","filename","entry","project"?} -> {"ok":true} | {"ok":false,"error"}
 *     (project: the project's modules the program imports by relative path, see useProject)
 *   {"op":"call","args":<wire>}                            -> {"ok":true,"type","value":<wire>} | {"ok":false,"error"}
 *   {"op":"echo","chars":k,"pad":"..."}                     -> {"ok":true,"type":"string","value":"xx..."} (k x's)
 * With "entry": null the program's exports are kept whole, for the process boundary of
 * peagen-standin.js, which calls them by name:
 *   {"op":"invoke","name","args":<wire>} -> {"ok":true,"type","value":<wire>,"changed":{"<i>":<wire>}}
 *                                           | {"ok":false,"error","name"}  (changed: the arguments
 *                                           the call changed in place, by position)
 *   {"op":"describe"}                   -> {"ok":true,"names":{name: {"kind":"function"} |
 *                                           {"kind":"value","value":<wire>} | {"kind":"unsupported","what"}}}
 *                                           (the name "" is module.exports itself when it is a function)
 * fd 1 is /dev/null and fd 2 carries only this runner's own diagnostics.
 *
 * Why this is safe to time from outside:
 *  - The candidate runs in its own vm context (own globals, no process/require/module of
 *    ours, code generation from strings and wasm disabled). Nothing of this realm is handed
 *    to it: its inputs are built inside its realm, its module/exports/require objects too.
 *  - The loop below is synchronous: between a reply and the next request nothing runs, so
 *    promise jobs or callbacks the candidate queued never get CPU outside a timed request.
 *    Echo requests never touch candidate code, so the candidate cannot make the parent's
 *    IPC baseline look slower than it is.
 *  - Everything this runner uses is captured before the candidate is loaded.
 * All verdicts (values and times) are made by the parent; nothing said here about time exists.
 */
const fs = require('fs');
const vm = require('vm');
const { realmGlobals } = require('./peagen-realm-globals.js');
// Brand checks of the runner's own (they read the object's internal slots, whatever realm made
// it, and run none of its code): the realm's try-and-catch checks threw four errors for every
// plain object, 30 µs each, and 50,000 points took 1.5 s to compare.
const { isNativeError, isProxy, isMap, isSet, isRegExp, isDate, isTypedArray } = require('util').types;
// A typed array's kind and bytes from its internal slots (these getters work on any realm's
// typed arrays and run none of the candidate's code).
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayName = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get);
const typedArrayGetter = (name) => Function.prototype.call.bind(Object.getOwnPropertyDescriptor(TypedArrayProto, name).get);
const typedArrayBuffer = typedArrayGetter('buffer');
const typedArrayByteOffset = typedArrayGetter('byteOffset');
const typedArrayByteLength = typedArrayGetter('byteLength');

const readSync = fs.readSync;
const writeSync = fs.writeSync;
const BufferAlloc = Buffer.alloc;
const BufferFrom = Buffer.from;
const stringify = JSON.stringify;
const parse = JSON.parse;
const StringCtor = String;
const NumberCtor = Number;
const NumberIsFinite = Number.isFinite;
const ObjectIs = Object.is;
const ObjectKeys = Object.keys;
const ObjectPrototypeToString = Function.prototype.call.bind(Object.prototype.toString);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectIsExtensible = Object.isExtensible;
const ObjectIsFrozen = Object.isFrozen;
const ReflectOwnKeys = Reflect.ownKeys;
const hrtimeNs = process.hrtime.bigint;
const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
const ArrayIsArray = Array.isArray;
const ReflectApply = Reflect.apply;
const stringRepeat = Function.prototype.call.bind(String.prototype.repeat);
const stringIndexOf = Function.prototype.call.bind(String.prototype.indexOf);
const stringSlice = Function.prototype.call.bind(String.prototype.slice);
const arrayJoin = Function.prototype.call.bind(Array.prototype.join);
const stringLastIndexOf = Function.prototype.call.bind(String.prototype.lastIndexOf);
const URLCtor = URL;
const URLCanParse = URL.canParse;
const SourceTextModule = vm.SourceTextModule;
const SyntheticModule = vm.SyntheticModule;

const REQUEST_FD = 0;
const REPLY_FD = 3;
const MAX_DEPTH = 64;
// Twice what it was for typed arrays: base64-js's tests send 64 MiB of bytes (89 MB as base64).
const MAX_OUTPUT_CHARS = 128 * 1024 * 1024;

// ------------------------------------------------------------------ pipes
const readBuffer = BufferAlloc(1 << 16);
// Read once, here: a Buffer's prototype is not an intrinsic (--frozen-intrinsics leaves it
// open), so its methods and accessors are not looked up after the program has loaded.
const readArrayBuffer = readBuffer.buffer;
const readOffset = readBuffer.byteOffset;
let pending = ''; // text read past the lines returned so far
// The pieces of the line being read, none holding a newline: joined once when it ends. A
// string grown by += and searched after each read is flattened, copied whole, on every
// search: an 89 MB argument (base64-js's) took minutes to read.
let lineParts = [];
// A character split between two reads is joined, not replaced (a request of non-ASCII text
// longer than one read was corrupted at the boundary).
const utf8 = new (require('string_decoder').StringDecoder)('utf8');
const decodeChunk = Function.prototype.call.bind(utf8.write, utf8);

/** Next request line (blocking), or null when the parent closed the pipe. */
function readRequest() {
  for (;;) {
    const k = stringIndexOf(pending, '\n');
    if (k >= 0) {
      lineParts[lineParts.length] = stringSlice(pending, 0, k);
      const line = lineParts.length === 1 ? lineParts[0] : arrayJoin(lineParts, '');
      lineParts = [];
      pending = stringSlice(pending, k + 1);
      return line;
    }
    if (pending.length > 0) lineParts[lineParts.length] = pending;
    pending = '';
    let n;
    try {
      n = readSync(REQUEST_FD, readBuffer, 0, readBuffer.length, null);
    } catch (err) {
      if (err && err.code === 'EAGAIN') continue;
      throw err;
    }
    if (n === 0) return null;
    pending = decodeChunk(BufferFrom(readArrayBuffer, readOffset, n));
  }
}

function writeAll(text) {
  const bytes = BufferFrom(text, 'utf8');
  let off = 0;
  while (off < bytes.length) off += writeSync(REPLY_FD, bytes, off, bytes.length - off);
}

// Replies are built as strings so that nothing (not even a polluted prototype reachable
// through an allowed module) can change their shape.
const reply = {
  ok: (type, wire, mutated) => writeAll(`{"ok":true,"type":${stringify(type)},"mutated":${mutated ? 'true' : 'false'},"value":${wire}}\n`),
  loaded: () => writeAll('{"ok":true}\n'),
  fail: (error, thrown) => writeAll(`{"ok":false,"error":${stringify(error)}${thrown ? `,"thrown":${stringify(thrown)}` : ''}}\n`),
};

// ------------------------------------------------------------------ values
function describe(err) {
  try {
    if (err !== null && (typeof err === 'object' || typeof err === 'function')) {
      const name = StringCtor(err.name);
      const message = StringCtor(err.message);
      const head = `${name}: ${message}`;
      const stack = typeof err.stack === 'string' ? err.stack : '';
      const frames = [];
      for (const line of stack.split('\n')) {
        // the program's own frames only: the runner's and Node's say nothing to its author
        if (line.trim().startsWith('at ') && !/peagen-harness|\(node:|at node:/.test(line) && frames.length < 5) frames.push(line);
      }
      return stringSlice([head, ...frames].join('\n'), 0, 1500);
    }
    return stringSlice(`${typeof err === 'symbol' ? 'a symbol' : StringCtor(err)}`, 0, 1500);
  } catch {
    return 'an exception that cannot be described';
  }
}

/**
 * The wire form of a value from the candidate's realm (see peagen-harness.js decodeWire):
 * JSON for null/boolean/string/finite numbers, {"$": tag, "v": ...} for everything else.
 */
function isArrayIndex(key, length) {
  const n = NumberCtor(key);
  return StringCtor(n) === key && n >= 0 && n < length && n % 1 === 0;
}

function encode(value, depth, budget) {
  if (depth > MAX_DEPTH) throw new RangeError(`the output is nested deeper than ${MAX_DEPTH} levels`);
  const t = typeof value;
  let out;
  if (value === null || t === 'boolean') out = value ? 'true' : value === null ? 'null' : 'false';
  else if (t === 'string') out = stringify(value);
  else if (t === 'number') {
    if (NumberIsFinite(value) && !ObjectIs(value, -0)) out = stringify(value);
    else out = `{"$":"number","v":${stringify(ObjectIs(value, -0) ? '-0' : StringCtor(value))}}`;
  } else if (t === 'bigint') out = `{"$":"bigint","v":"${value}"}`;
  else if (t === 'undefined') out = '{"$":"undefined"}';
  else if (t === 'object' && ArrayIsArray(value)) {
    const parts = [];
    const length = value.length;
    for (let i = 0; i < length; i += 1) parts[i] = encode(value[i], depth + 1, budget);
    // Named properties of an array are part of the answer (range-parser's `ranges.type`).
    const extra = [];
    for (const key of ObjectKeys(value)) {
      if (!isArrayIndex(key, length)) extra[extra.length] = `[${stringify(StringCtor(key))},${encode(value[key], depth + 1, budget)}]`;
    }
    out = extra.length > 0 ? `{"$":"array","v":[${parts.join(',')}],"p":[${extra.join(',')}]}` : `{"$":"array","v":[${parts.join(',')}]}`;
  } else if (t === 'object' && isTypedArray(value) && !isProxy(value)) {
    out = encodeTyped(value, budget);
  } else if (t === 'object' && isMap(value)) {
    const parts = [];
    const pairs = realm.mapPairs(value);
    for (let i = 0; i < pairs.length; i += 1) parts[i] = `[${encode(pairs[i][0], depth + 1, budget)},${encode(pairs[i][1], depth + 1, budget)}]`;
    out = `{"$":"map","v":[${parts.join(',')}]}`;
  } else if (t === 'object' && isSet(value)) {
    const parts = [];
    const items = realm.setItems(value);
    for (let i = 0; i < items.length; i += 1) parts[i] = encode(items[i], depth + 1, budget);
    out = `{"$":"set","v":[${parts.join(',')}]}`;
  } else if (t === 'object' && isRegExp(value)) {
    // The realm's own getters: a candidate's RegExp cannot lie about its source or flags.
    out = `{"$":"regexp","v":[${stringify(realm.regExpSource(value))},${stringify(realm.regExpFlags(value))}]}`;
  } else if (t === 'object' && isDate(value)) {
    const time = realm.dateTime(value);
    out = `{"$":"date","v":${NumberIsFinite(time) ? stringify(time) : 'null'}}`;
  } else if (t === 'object') {
    const parts = [];
    for (const key of ObjectKeys(value)) parts[parts.length] = `[${stringify(StringCtor(key))},${encode(value[key], depth + 1, budget)}]`;
    out = `{"$":"object","v":[${parts.join(',')}]}`;
  } else if (t === 'function' && realm.callbackIndex(value) >= 0) {
    // A judge's function it was given, as it was sent: an argument holding one is unchanged.
    out = `{"$":"callback","v":${realm.callbackIndex(value)}}`;
  } else out = `{"$":"opaque","v":${stringify(t)}}`;
  budget.chars += out.length;
  if (budget.chars > MAX_OUTPUT_CHARS) throw new RangeError(`the output is larger than ${MAX_OUTPUT_CHARS >> 20} MB`);
  return out;
}

/**
 * {"$":"typed","v":[kind, base64 of its bytes]}: a Uint8Array and the rest (base64-js's
 * toByteArray), as peagen-harness.js decodes them; both sides are this machine, one byte order.
 */
function encodeTyped(value, budget) {
  const bytes = typedArrayByteLength(value);
  // Checked before anything is built: base64 takes 4 characters for 3 bytes.
  if (budget.chars + (bytes / 3) * 4 > MAX_OUTPUT_CHARS) throw new RangeError(`the output is larger than ${MAX_OUTPUT_CHARS >> 20} MB`);
  const text = BufferFrom(typedArrayBuffer(value), typedArrayByteOffset(value), bytes).toString('base64');
  return `{"$":"typed","v":[${stringify(typedKind(value))},"${text}"]}`;
}

/** A typed array's kind: its own name, or 'Buffer' for one of the realm's Buffers. */
function typedKind(value) {
  return ObjectGetPrototypeOf(value) === realm.bufferPrototype ? 'Buffer' : typedArrayName(value);
}

// ------------------------------------------------------------------ the candidate's realm
/*
 * Runs inside the new context before the candidate, so what it captures is pristine. It
 * returns the inner-realm helpers: the input decoder, and the module/require objects the
 * candidate gets. Nothing from our realm is passed in except plain strings.
 */
const REALM_BOOTSTRAP = `(function (allowList, filename, makeBuffer) {
  'use strict';
  // The realm's Buffer (feross's buffer, compiled in this realm: see the build), made before
  // anything of the candidate's runs; a Buffer of the tests' arrives as one of these.
  const bufferModule = makeBuffer();
  const BufferCtor = bufferModule.Buffer;
  const parse = JSON.parse;
  const BigIntCtor = BigInt;
  const MapCtor = Map;
  const SetCtor = Set;
  // A Map's or Set's items through forEach, whose walk no iterator of the candidate's can change.
  const mapForEach = Function.prototype.call.bind(Map.prototype.forEach);
  const setForEach = Function.prototype.call.bind(Set.prototype.forEach);
  const RegExpCtor = RegExp;
  const DateCtor = Date;
  const typedKinds = { __proto__: null, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array, Buffer: BufferCtor };
  // Decoded before the candidate's code could change this realm's Buffer: base64 by hand, into this realm's bytes.
  const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const sextets = new Uint8Array(128).fill(255);
  for (let i = 0; i < 64; i += 1) sextets[BASE64.charCodeAt(i)] = i;
  const fromBase64 = (text) => {
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) === 61) end -= 1; // '='
    const out = new Uint8Array((end * 3) >> 2);
    let bits = 0;
    let held = 0;
    let at = 0;
    for (let i = 0; i < end; i += 1) {
      const code = text.charCodeAt(i);
      const sextet = code < 128 ? sextets[code] : 255;
      if (sextet === 255) throw new TypeErrorCtor('malformed base64');
      bits = (bits << 6) | sextet;
      held += 6;
      if (held >= 8) {
        held -= 8;
        out[at] = (bits >> held) & 255;
        at += 1;
      }
    }
    return out;
  };
  const regExpSource = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get);
  // The flags from each flag's own getter: RegExp.prototype.flags reads this.global and the
  // rest through the prototype, where a candidate's getters would run (and see the argument).
  const flagGetters = [['hasIndices', 'd'], ['global', 'g'], ['ignoreCase', 'i'], ['multiline', 'm'], ['dotAll', 's'], ['unicode', 'u'], ['unicodeSets', 'v'], ['sticky', 'y']]
    .filter(([name]) => Object.getOwnPropertyDescriptor(RegExp.prototype, name))
    .map(([name, letter]) => [Function.prototype.call.bind(Object.getOwnPropertyDescriptor(RegExp.prototype, name).get), letter]);
  const regExpFlags = (re) => { let out = ''; for (let i = 0; i < flagGetters.length; i += 1) if (flagGetters[i][0](re)) out += flagGetters[i][1]; return out; };
  const dateTime = Function.prototype.call.bind(Date.prototype.getTime);
  const defineProperty = Object.defineProperty;
  const setPrototypeOf = Object.setPrototypeOf;
  const freeze = Object.freeze;
  const mapSet = Function.prototype.call.bind(Map.prototype.set);
  const setAdd = Function.prototype.call.bind(Set.prototype.add);
  const NumberCtor = Number;
  const StringCtor = String;
  const ArrayProto = Array.prototype;
  const ObjectProto = Object.prototype;
  const TypeErrorCtor = TypeError;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  // Decoding runs no code of the candidate's, whatever it did to this realm at load: own
  // properties only, descriptors without a prototype (an Object.prototype getter 'enumerable'
  // would see each value), index loops (no array iterator), captured built-ins. The arguments
  // are decoded before the timed call, so code run here would be work nobody times.
  const put = (target, key, value) => defineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
  const field = (w, key) => (hasOwn(w, key) ? w[key] : undefined);
  const mapPairs = (m) => { const out = []; mapForEach(m, (value, key) => put(out, out.length, [key, value])); return out; };
  const setItems = (s) => { const out = []; setForEach(s, (value) => put(out, out.length, value)); return out; };
  function fromWire(w) {
    if (w === null || typeof w !== 'object') return w;
    const v = field(w, 'v');
    const tag = field(w, '$');
    switch (tag) {
      case 'bigint': return BigIntCtor(v);
      case 'undefined': return undefined;
      case 'number': return v === '-0' ? -0 : NumberCtor(v);
      case 'array': { const a = []; for (let i = 0; i < v.length; i += 1) put(a, i, fromWire(v[i])); return a; }
      case 'map': { const m = new MapCtor(); for (let i = 0; i < v.length; i += 1) mapSet(m, fromWire(v[i][0]), fromWire(v[i][1])); return m; }
      case 'set': { const s = new SetCtor(); for (let i = 0; i < v.length; i += 1) setAdd(s, fromWire(v[i])); return s; }
      case 'object': { const o = {}; for (let i = 0; i < v.length; i += 1) put(o, StringCtor(v[i][0]), fromWire(v[i][1])); return o; }
      case 'regexp': return new RegExpCtor(StringCtor(v[0]), StringCtor(v[1]));
      case 'callback': if (callbackLoader !== null && typeof v === 'number') return makeCallback(v); break;
      case 'date': return new DateCtor(v === null ? NaN : NumberCtor(v));
      case 'typed': {
        const Kind = typedKinds[StringCtor(v[0])];
        if (Kind === undefined) break;
        const bytes = fromBase64(StringCtor(v[1]));
        if (Kind === BufferCtor) return setPrototypeOf(bytes, BufferCtor.prototype);
        if (bytes.length % Kind.BYTES_PER_ELEMENT !== 0) break;
        return new Kind(bytes.buffer, 0, bytes.length / Kind.BYTES_PER_ELEMENT);
      }
      default: break;
    }
    throw new TypeErrorCtor('unknown wire tag ' + StringCtor(tag));
  }
  const allowed = parse(allowList);
  const provided = new MapCtor();
  const module = { exports: {}, id: '.', filename, loaded: false, children: [], paths: [] };
  const setFilename = (name) => { module.filename = name; };
  // The project's modules by relative path (see useProject in the runner): the runner's
  // loader answers {ok, value | message}; errors are made here, in this realm.
  let relativeLoader = null;
  // The judge's functions passed as arguments (see callBack in the runner): {ok, value | name, message}.
  let callbackLoader = null;
  const stubs = new WeakMap(); // each stand-in of a judge's function -> its index
  const stubIndex = Function.prototype.call.bind(WeakMap.prototype.get);
  const isStub = Function.prototype.call.bind(WeakMap.prototype.has);
  const addStub = Function.prototype.call.bind(WeakMap.prototype.set);
  const makeCallback = (index) => {
    const callback = function callback(...args) {
      const answer = callbackLoader(index, args);
      if (answer.ok) return answer.value;
      const name = String(answer.name);
      const Kind = /^[A-Z]\\w*Error$/.test(name) && typeof globalThis[name] === 'function' ? globalThis[name] : Error;
      throw new Kind(String(answer.message));
    };
    addStub(stubs, callback, index);
    return callback;
  };
  const makeRequire = (from) => function require(name) {
    const spec = String(name);
    if (relativeLoader !== null && (spec === '.' || spec === '..' || spec.startsWith('./') || spec.startsWith('../'))) {
      const found = relativeLoader(from, spec);
      if (found.ok) return found.value;
      throw new Error(String(found.message));
    }
    if (provided.has(spec)) return provided.get(spec);
    throw new Error('require(' + JSON.stringify(spec) + ') is not allowed here' +
      (allowed.length ? ' (allowed: ' + allowed.join(', ') + ')' : ' (this benchmark allows no modules)'));
  };
  const require = makeRequire('');
  const made = (${realmGlobals.toString()})(put, freeze);
  for (const name of ['console', 'TextDecoder', 'TextEncoder', 'URL', 'URLSearchParams']) defineProperty(globalThis, name, { __proto__: null, value: made[name], writable: true, configurable: true });
  defineProperty(globalThis, 'Buffer', { __proto__: null, value: BufferCtor, writable: true, configurable: true });
  const reserved = ['undefined', 'NaN', 'Infinity', 'eval', 'arguments'];
  const globalNames = Object.getOwnPropertyNames(globalThis).filter((n) => /^[A-Za-z_$][\\w$]*$/.test(n) && !reserved.includes(n));
  const globalValues = globalNames.map((n) => globalThis[n]);
  return freeze({
    globalNames: freeze(globalNames),
    globalValues: () => globalValues.slice(),
    decodeArgs: (text) => { const a = parse(text); const out = []; for (let i = 0; i < a.length; i += 1) put(out, i, fromWire(a[i])); return out; },
    provide: (name, value) => provided.set(name, value),
    bufferModule,
    bufferPrototype: BufferCtor.prototype,
    setFilename,
    module,
    require,
    Map: MapCtor,
    Set: SetCtor,
    mapPairs,
    setItems,
    // The prototypes this realm's plain values have: another one is a change.
    intrinsic: (kind) => (typedKinds[kind] ? typedKinds[kind].prototype : ({ map: MapCtor.prototype, set: SetCtor.prototype, regexp: RegExpCtor.prototype, date: DateCtor.prototype, array: ArrayProto, object: ObjectProto })[kind]),
    makeRequire,
    setRelativeLoader: (loader) => { relativeLoader = loader; },
    setCallbackLoader: (loader) => { callbackLoader = loader; },
    setUrlLoader: made.setUrlLoader,
    callbackIndex: (fn) => (isStub(stubs, fn) ? stubIndex(stubs, fn) : -1),
    decodeValue: (text) => fromWire(parse(text)),
    newModule: (name) => ({ exports: {}, id: name, filename: name, loaded: false, children: [], paths: [] }),
    parseJson: (text) => parse(text),
    takePrinted: made.takePrinted,
    RegExp: RegExpCtor,
    Date: DateCtor,
    regExpSource,
    regExpFlags,
    dateTime,
  });
})`;

/*
 * The parsing behind the realm's URL (peagen-realm-globals.js): Node's own URL, here, asked with
 * strings and answering a record of strings made here (no prototype; the realm copies its
 * fields). op 'parse' (input, base | undefined), 'check' (input, base | undefined), or 'set'
 * (href, component, value): the href parsed again and one component set, as that setter does.
 * An invalid URL is {ok: false, message}; anything else that throws here (the stack the program
 * used up) is thrown on, and the realm throws its own error instead of it.
 */
// Its accessors captured now: an allowed module (the documented hole) could change URL.prototype.
const urlAccessor = (name, kind) => Function.prototype.call.bind(ObjectGetOwnPropertyDescriptor(URLCtor.prototype, name)[kind]);
const urlGet = {
  __proto__: null, href: urlAccessor('href', 'get'), origin: urlAccessor('origin', 'get'), protocol: urlAccessor('protocol', 'get'),
  username: urlAccessor('username', 'get'), password: urlAccessor('password', 'get'), host: urlAccessor('host', 'get'),
  hostname: urlAccessor('hostname', 'get'), port: urlAccessor('port', 'get'), pathname: urlAccessor('pathname', 'get'),
  search: urlAccessor('search', 'get'), hash: urlAccessor('hash', 'get'),
};
const urlSet = { __proto__: null };
for (const name of ['protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']) urlSet[name] = urlAccessor(name, 'set');
function urlRecord(url) {
  return {
    __proto__: null, ok: true, href: urlGet.href(url), origin: urlGet.origin(url), protocol: urlGet.protocol(url),
    username: urlGet.username(url), password: urlGet.password(url), host: urlGet.host(url), hostname: urlGet.hostname(url),
    port: urlGet.port(url), pathname: urlGet.pathname(url), search: urlGet.search(url), hash: urlGet.hash(url),
  };
}
function urlLoader(op, a, b, c) {
  if (typeof a !== 'string' || (b !== undefined && typeof b !== 'string')) return { __proto__: null, ok: false, message: 'Invalid URL' };
  if (op === 'check') return { __proto__: null, ok: ReflectApply(URLCanParse, URLCtor, b === undefined ? [a] : [a, b]) === true };
  let url;
  try {
    url = b === undefined || op === 'set' ? new URLCtor(a) : new URLCtor(a, b);
  } catch (err) {
    if (err instanceof TypeError && err.code === 'ERR_INVALID_URL' && typeof err.message === 'string') return { __proto__: null, ok: false, message: err.message };
    throw err;
  }
  if (op === 'set') {
    const setter = typeof c === 'string' && typeof b === 'string' ? urlSet[b] : undefined;
    if (setter === undefined) return { __proto__: null, ok: false, message: 'Invalid URL component' };
    setter(url, c);
  } else if (op !== 'parse') return { __proto__: null, ok: false, message: 'Invalid URL operation' };
  return urlRecord(url);
}

let realm; // the helpers REALM_BOOTSTRAP returned
let entryFunction = null;
let exportsObject = null; // the program's exports, when loaded without an entry

function pickEntry(exportsValue, entry, binding) {
  // `exports.default.slug`: a path through the exports' own data properties, and nothing else
  // (the evaluator read it from the trusted original; a binding of that name is not the export).
  if (stringSlice(entry, 0, 8) === 'exports.') {
    let value = exportsValue;
    let rest = stringSlice(entry, 8);
    while (value !== undefined) {
      const dot = stringIndexOf(rest, '.');
      value = ownData(value, dot < 0 ? rest : stringSlice(rest, 0, dot));
      if (dot < 0) break;
      rest = stringSlice(rest, dot + 1);
    }
    if (typeof value === 'function') return value;
    throw new TypeError(`the program exports no function at ${entry} (the original's ${stringSlice(entry, stringLastIndexOf(entry, '.') + 1)}() is there)`);
  }
  const isObject = exportsValue !== null && (typeof exportsValue === 'object' || typeof exportsValue === 'function');
  if (isObject && hasOwn(exportsValue, entry) && typeof exportsValue[entry] === 'function') return exportsValue[entry];
  // A function the module defines under that name without exporting it (an internal helper).
  if (typeof binding === 'function') return binding;
  if (typeof exportsValue === 'function') return exportsValue;
  if (isObject) {
    const dflt = exportsValue.default;
    if (typeof dflt === 'function') return dflt;
    if (dflt !== null && typeof dflt === 'object' && typeof dflt[entry] === 'function') return dflt[entry];
    // A member of an exported object (`export const api = { entry(x) {…} }`): own data properties only.
    for (const key of ObjectKeys(exportsValue)) {
      const holder = ownData(exportsValue, key);
      const member = holder !== null && typeof holder === 'object' ? ownData(holder, entry) : undefined;
      if (typeof member === 'function') return member;
    }
  }
  throw new TypeError(`the program defines no function ${entry}() (module.exports = { ${entry} })`);
}

const looksLikeModuleSyntax = (err) =>
  err instanceof SyntaxError && /\bimport\b|\bexport\b|top-level await|await is only valid/.test(`${err.message}`);

/*
 * The context is made at startup, before the parent's first echo, so the timed load request
 * measures only what the program itself costs: compiling it and running its top level.
 * argv[2] is the JSON allow-list of modules (builtins, or packages of argv[3]).
 */
const allowList = parse(process.argv[2] || '[]');
// argv[3]: the node_modules of the example's package.json, or ''. Allowed modules are
// required from there (builtins resolve first either way).
const requireAllowed = process.argv[3] ? require('module').createRequire(`${process.argv[3]}/`) : require;
const context = vm.createContext(Object.create(null), { name: 'candidate', codeGeneration: { strings: false, wasm: false } });
{
  const bootstrap = new vm.Script(REALM_BOOTSTRAP, { filename: 'peagen-harness-realm.js' }).runInContext(context);
  let bufferSource;
  try {
    bufferSource = fs.readFileSync(require('path').join(__dirname, 'generated', 'peagen-realm-buffer.js'), 'utf8');
  } catch (err) {
    throw new Error(`the realm's Buffer (harness/js/generated/peagen-realm-buffer.js) is missing: build Peagen (npm run build). ${err.message}`);
  }
  const makeBuffer = new vm.Script(bufferSource, { filename: 'peagen-realm-buffer.js' }).runInContext(context);
  realm = ReflectApply(bootstrap, undefined, [stringify(allowList), 'candidate.js', makeBuffer]);
  for (const name of allowList) realm.provide(name, allowedModule(name)); // documented hole: allowed modules come from this realm
  realm.setCallbackLoader((index, args) => callBack(index, args));
  realm.setUrlLoader(urlLoader);
}
let loaded = false;

/** An allowed module as the candidate gets it: `buffer` is the realm's own, the rest the runner's. */
function allowedModule(name) {
  return name === 'buffer' || name === 'node:buffer' ? realm.bufferModule : requireAllowed(name);
}

async function load(request) {
  loaded = true;
  request.allow = allowList;
  useProject(request);
  try {
    // Compile as a script first only to tell CommonJS from an ES module; cheap and exact.
    new vm.Script(`(function (exports, require, module, __filename, __dirname) {${request.source}\n})`, { filename: request.filename });
  } catch (err) {
    if (!looksLikeModuleSyntax(err) || !SourceTextModule) throw err;
    const namespace = await loadModule(request, context);
    if (request.entry === null) exportsObject = namespace;
    else entryFunction = pickEntry(namespace, request.entry, namespace[ENTRY_EXPORT]);
    return;
  }
  // The entry's own binding too (an internal helper need not be exported): returned after the
  // program's last line, where typeof cannot throw.
  const entryBinding = request.entry !== null && IDENTIFIER.test(request.entry) ? `\n;return typeof ${request.entry} === 'function' ? ${request.entry} : undefined;` : '';
  let wrapper;
  try {
    wrapper = commonJsFunction(request.source + entryBinding, request.filename);
  } catch (err) {
    if (entryBinding === '') throw err;
    wrapper = commonJsFunction(request.source, request.filename); // the entry is no binding (`default`)
  }
  const module = realm.module;
  realm.setFilename(StringCtor(request.filename));
  const binding = ReflectApply(wrapper, module.exports, [module.exports, realm.require, module, request.filename, '.']);
  if (request.entry === null) exportsObject = module.exports;
  else entryFunction = pickEntry(module.exports, request.entry, binding);
}

/*
 * The standard globals are bound as parameters of an outer function: a lookup through the
 * vm context's global object goes through an interceptor and is several times slower, which
 * would distort the timing of every program that names BigInt, Math, Number... The program is
 * the body of the inner function, so its own top-level declarations may shadow them. The
 * prefix has no newline: line numbers in stack traces stay right.
 */
function commonJsFunction(source, filename) {
  const outer = new vm.Script(
    `(function (${realm.globalNames.join(',')}) { return function (exports, require, module, __filename, __dirname) {${source}\n} })`,
    { filename },
  ).runInContext(context);
  return ReflectApply(outer, undefined, realm.globalValues());
}

/*
 * The project's modules the original imports by relative path (peagen-project-modules.js),
 * sent with the program: `modules` {key: {source, kind}}, `links` {"<from key>\0<specifier>":
 * key}, '' being the program. Each is compiled once, in the candidate's realm; a specifier the
 * original did not use from that module is refused. Returns the ES linker's lookup.
 */
let project = { modules: {}, links: {} };
const commonJsModules = new Map(); // key -> the realm's module object
const esModules = new Map(); // key -> vm module
const keyOfModule = new WeakMap(); // vm module -> key

function projectKey(from, specifier) {
  const link = `${from}\0${specifier}`;
  if (!hasOwn(project.links, link)) return undefined;
  const key = project.links[link];
  return key === '' || hasOwn(project.modules, key) ? key : undefined;
}

function requireProjectModule(key) {
  if (key === '') return { ok: true, value: realm.module.exports };
  if (commonJsModules.has(key)) return { ok: true, value: commonJsModules.get(key).exports };
  const entry = project.modules[key];
  if (entry.kind === 'json') {
    const module = { exports: realm.parseJson(entry.source) };
    commonJsModules.set(key, module);
    return { ok: true, value: module.exports };
  }
  if (entry.kind === 'esm') return { ok: false, message: `${key} is an ES module, which require() cannot load here: import it` };
  let fn;
  try {
    fn = commonJsFunction(entry.source, key);
  } catch (err) {
    return { ok: false, message: `${key} cannot be compiled: ${describe(err)}` };
  }
  const module = realm.newModule(key);
  commonJsModules.set(key, module); // before it runs: a cycle gets the exports so far, as in Node
  const slash = stringLastIndexOf(key, '/');
  ReflectApply(fn, module.exports, [module.exports, realm.makeRequire(key), module, key, slash < 0 ? '.' : stringSlice(key, 0, slash)]);
  return { ok: true, value: module.exports };
}

function useProject(request) {
  const sent = request.project;
  if (!sent || typeof sent !== 'object') return;
  project = { modules: sent.modules && typeof sent.modules === 'object' ? sent.modules : {}, links: sent.links && typeof sent.links === 'object' ? sent.links : {} };
  realm.setRelativeLoader((from, specifier) => {
    const key = projectKey(StringCtor(from), StringCtor(specifier));
    if (key === undefined) return { ok: false, message: `require(${stringify(StringCtor(specifier))}) is not allowed here: the project's modules are those the original requires, by the same name` };
    return requireProjectModule(key);
  });
}

function projectEsModule(key, mainModule) {
  if (key === '') return mainModule;
  if (esModules.has(key)) return esModules.get(key);
  const entry = project.modules[key];
  let mod;
  if (entry.kind === 'esm') mod = new SourceTextModule(entry.source, { identifier: key, context });
  else {
    const loaded = requireProjectModule(key);
    if (!loaded.ok) throw new Error(loaded.message);
    const value = loaded.value;
    const names = entry.kind === 'cjs' && value !== null && typeof value === 'object' ? ObjectKeys(value).filter((k) => k !== 'default') : [];
    mod = new SyntheticModule(['default', ...names], function init() {
      this.setExport('default', value);
      for (const k of names) this.setExport(k, value[k]);
    }, { context });
  }
  keyOfModule.set(mod, key);
  esModules.set(key, mod);
  return mod;
}

/** The name under which an ES module's entry binding is exported for the runner (see loadModule). */
const ENTRY_EXPORT = '__peagen_entry__';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

async function loadModule(request, context) {
  // The entry's own binding, exported under a name of ours (an internal helper need not be
  // exported); a module where the name is not a binding of its own compiles without it.
  let mod;
  if (request.entry !== null && IDENTIFIER.test(request.entry)) {
    try {
      mod = new SourceTextModule(`${request.source}\n;export { ${request.entry} as ${ENTRY_EXPORT} };`, { identifier: request.filename, context });
    } catch {
      mod = undefined;
    }
  }
  if (mod === undefined) mod = new SourceTextModule(request.source, { identifier: request.filename, context });
  await mod.link(async (specifier, referencing) => {
    if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
      const key = projectKey(keyOfModule.has(referencing) ? keyOfModule.get(referencing) : '', specifier);
      if (key === undefined) throw new Error(`import ${stringify(specifier)} is not allowed here: the project's modules are those the original imports, by the same name`);
      return projectEsModule(key, mod);
    }
    if (!request.allow.includes(specifier) || !SyntheticModule) {
      throw new Error(`import ${stringify(specifier)} is not allowed here`);
    }
    const value = allowedModule(specifier);
    // An ES module package (require() of it gives its namespace) has a default of its own.
    const named = ObjectKeys(value).filter((k) => k !== 'default');
    const dflt = ObjectPrototypeToString(value) === '[object Module]' ? value.default : value;
    return new SyntheticModule(['default', ...named], function init() {
      this.setExport('default', dflt);
      for (const k of named) this.setExport(k, value[k]);
    }, { context });
  });
  const done = mod.evaluate();
  if (mod.status !== 'evaluated') {
    if (mod.status === 'errored') throw mod.error;
    done.catch(() => {});
    throw new Error('top-level await is not supported: the module must finish loading synchronously');
  }
  return mod.namespace;
}

/** The arguments as wire text, to tell whether the call changed them (null: they cannot be encoded). */
function encodeArgs(args) {
  try {
    return encode(args, 0, { chars: 0 });
  } catch {
    return null;
  }
}

/*
 * The arguments as they are, read without running any code of the candidate's (a getter it
 * put on an argument would otherwise run in the untimed request after the call, with seconds
 * to build what the next call uses): own property descriptors, never values through getters;
 * every own key (non-enumerable and symbols too), the prototype, whether the object can still
 * be extended or was frozen. An accessor or a proxy anywhere is no snapshot (null): the call
 * turned plain data into something else, which counts as changing its arguments.
 */
function snapshot(value, depth, budget) {
  if (depth > MAX_DEPTH) throw new RangeError('nested too deep');
  const t = typeof value;
  if (value === null || (t !== 'object' && t !== 'function')) return encode(value, 0, budget);
  if (isProxy(value)) throw new TypeError('a proxy');
  if (t === 'function') {
    const index = realm.callbackIndex(value);
    return index >= 0 ? `{"$":"callback","v":${index}}` : '{"$":"function"}';
  }
  if (isTypedArray(value)) {
    // Its elements and kind; its indices are not keys to walk one by one (a million of them).
    const out = `["typed",${encodeTyped(value, budget)},${stringify(StringCtor(ObjectGetPrototypeOf(value) === realm.intrinsic(typedKind(value))))}]`;
    budget.chars += out.length;
    return out;
  }
  let head = isMap(value) ? 'map' : isSet(value) ? 'set' : isRegExp(value) ? 'regexp' : isDate(value) ? 'date' : ArrayIsArray(value) ? 'array' : 'object';
  const proto = ObjectGetPrototypeOf(value);
  head += proto === realm.intrinsic(head) ? '' : proto === null ? ' null-proto' : ' other-proto';
  if (!ObjectIsExtensible(value)) head += ObjectIsFrozen(value) ? ' frozen' : ' closed';
  const parts = [stringify(head)];
  if (head.startsWith('map')) {
    const pairs = realm.mapPairs(value);
    for (let i = 0; i < pairs.length; i += 1) parts[parts.length] = `[${snapshot(pairs[i][0], depth + 1, budget)},${snapshot(pairs[i][1], depth + 1, budget)}]`;
  } else if (head.startsWith('set')) {
    const items = realm.setItems(value);
    for (let i = 0; i < items.length; i += 1) parts[parts.length] = snapshot(items[i], depth + 1, budget);
  } else if (head.startsWith('regexp')) parts[parts.length] = `${stringify(realm.regExpSource(value))},${stringify(realm.regExpFlags(value))}`;
  else if (head.startsWith('date')) parts[parts.length] = stringify(StringCtor(realm.dateTime(value)));
  const keys = ReflectOwnKeys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const own = ObjectGetOwnPropertyDescriptor(value, key);
    if (!('value' in own)) throw new TypeError('an accessor');
    const name = typeof key === 'symbol' ? `@${StringCtor(key.description)}` : key;
    const flags = (own.enumerable ? 'e' : '') + (own.writable ? 'w' : '') + (own.configurable ? 'c' : '');
    parts[parts.length] = `[${stringify(name)},${stringify(flags)},${snapshot(own.value, depth + 1, budget)}]`;
  }
  const out = `[${parts.join(',')}]`;
  budget.chars += out.length;
  if (budget.chars > MAX_OUTPUT_CHARS) throw new RangeError('too large');
  return out;
}

/** The snapshot of a call's arguments, or null when they are not plain data any more. */
function snapshotArgs(args) {
  try {
    return snapshot(args, 0, { chars: 0 });
  } catch {
    return null;
  }
}

/*
 * A call is three requests, so that only the call is timed: "prepare" decodes the arguments
 * (or a batch's argument lists) and encodes them for the comparison after; "call" or "batch"
 * runs the function and encodes its answer, nothing else (the parent times this request
 * alone); "changed" says whether the call changed its arguments. Decoding and encoding a
 * list of 50,000 numbers takes some 40 ms, beside 0.05 ms of a loop over it: timed with the
 * call, it made every candidate of such a function read 1.0x. Preparing runs no code of the
 * candidate's (see fromWire), so no work can move there.
 */
let prepared = null; // { args, before } or { calls } for the next call or batch

function prepare(request) {
  if (ArrayIsArray(request.calls)) {
    const calls = [];
    for (let i = 0; i < request.calls.length; i += 1) {
      if (!ArrayIsArray(request.calls[i])) {
        prepared = null;
        reply.fail('a batch is a list of argument lists');
        return;
      }
      calls[i] = realm.decodeArgs(stringify(request.calls[i]));
    }
    prepared = { calls };
  } else {
    const args = realm.decodeArgs(stringify(request.args));
    // A caller that reuses its arguments sees what the call did to them: the evaluator compares
    // whether the candidate and the reference change them (each process has its own copy).
    prepared = { args, before: snapshotArgs(args) };
  }
  writeAll('{"ok":true}\n');
}

function call() {
  if (prepared === null || prepared.args === undefined) {
    reply.fail('no call was prepared');
    return;
  }
  const args = prepared.args;
  let value;
  try {
    value = ReflectApply(entryFunction, undefined, args);
  } catch (err) {
    reply.fail(describe(err), thrownKind(err));
    return;
  }
  let wire;
  try {
    wire = encode(value, 0, { chars: 0 });
  } catch (err) {
    reply.fail(`the output cannot be sent back: ${describe(err)}`);
    return;
  }
  reply.ok(typeof value, wire, false);
}

function changed() {
  if (prepared === null || prepared.args === undefined) {
    reply.fail('no call was prepared');
    return;
  }
  const { args, before } = prepared;
  prepared = null;
  const after = snapshotArgs(args);
  const mutated = before === null || before !== after;
  // What they became too: a call that fills its list with something else than the original's
  // sort is not the same answer as one that sorts it. Only when they changed: the snapshot of
  // 184,000 points is megabytes (simplify-js), and unchanged arguments are the same input in
  // both processes. (Not a digest: a hash object of crypto's, which an allowed module hands
  // the candidate, could be hooked to answer for a call that left its work to this request.)
  writeAll(`{"ok":true,"mutated":${mutated ? 'true' : 'false'},"after":${mutated ? stringify(after) : 'null'}}\n`);
}

/*
 * Many calls in one timed request: a function too quick to time one call at a time. The
 * answers come back as one list; a call that throws fails the whole batch (the judge sends
 * only calls the original answers). With `settle`, each answer is only whether the call
 * returned (within maxNs), so that the judge can find such calls on the original.
 */
function batch(request) {
  if (prepared === null || prepared.calls === undefined) {
    reply.fail('no batch was prepared');
    return;
  }
  const calls = prepared.calls;
  prepared = null;
  const parts = [];
  const budget = { chars: 0 };
  // Settling, a call slower than maxNs is not one for a batch either (a batch is made of quick calls).
  const maxNs = request.settle === true && typeof request.maxNs === 'number' ? request.maxNs : Infinity;
  for (let i = 0; i < calls.length; i += 1) {
    let value;
    const started = hrtimeNs();
    try {
      value = ReflectApply(entryFunction, undefined, calls[i]);
    } catch (err) {
      if (request.settle === true) {
        parts[i] = 'false';
        continue;
      }
      reply.fail(`call ${i + 1} of the batch: ${describe(err)}`);
      return;
    }
    if (request.settle === true) {
      parts[i] = NumberCtor(hrtimeNs() - started) <= maxNs ? 'true' : 'false';
      continue;
    }
    try {
      parts[i] = encode(value, 0, budget);
    } catch (err) {
      reply.fail(`the output of call ${i + 1} of the batch cannot be sent back: ${describe(err)}`);
      return;
    }
  }
  reply.ok('object', `{"$":"array","v":[${parts.join(',')}]}`, false);
}

/** What was thrown: an error object (by its brand, not its name), another object, or a primitive's type. */
function thrownKind(err) {
  if (err === null || (typeof err !== 'object' && typeof err !== 'function')) return err === null ? 'null' : typeof err;
  if (isProxy(err)) return 'proxy';
  return isNativeError(err) ? 'error' : 'object';
}

/** The error's constructor name as the parent may rebuild it (a built-in error's name only). */
function errorName(err) {
  try {
    // The class's own name first (`class ListError extends RangeError` that never sets .name).
    const ctor = err !== null && typeof err === 'object' ? err.constructor : undefined;
    const own = typeof ctor === 'function' ? ctor.name : undefined;
    const name = typeof own === 'string' && own !== '' && own !== 'Object' ? own : err !== null && typeof err === 'object' ? err.name : undefined;
    // Any identifier: the judge raises the original module's class of that name, else the
    // built-in one, else Error (peagen-standin.js); the name itself is only a string.
    return typeof name === 'string' && /^[A-Za-z_$][\w$]{0,99}$/.test(name) ? name : 'Error';
  } catch {
    return 'Error';
  }
}

function errorMessage(err) {
  try {
    return err !== null && typeof err === 'object' && typeof err.message === 'string' ? stringSlice(err.message, 0, 2000) : '';
  } catch {
    return '';
  }
}

/** The exports the boundary may read: own enumerable data properties only (no getters run). */
function exported(name) {
  if (name === '' && typeof exportsObject === 'function') return exportsObject; // module.exports = function
  // `holder.member`: a function of an exported object (`export default { f }`); names have no dots.
  const dot = stringIndexOf(name, '.');
  if (dot > 0) {
    const holder = ownData(exportsObject, stringSlice(name, 0, dot));
    return holder !== null && typeof holder === 'object' ? ownData(holder, stringSlice(name, dot + 1)) : undefined;
  }
  return ownData(exportsObject, name);
}

/** An own data property's value (a getter is never run), or undefined. */
function ownData(object, key) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  const own = ObjectGetOwnPropertyDescriptor(object, key);
  return own && 'value' in own ? own.value : undefined;
}

/*
 * A call the candidate makes of a function of the judge's it got as an argument (a boundary
 * call only): the arguments go to the parent as {"callback", "args"} while the invoke is still
 * running, and its answer comes back as {"op":"answer", "ok", "value" | "name", "message"}.
 */
function callBack(index, args) {
  const parts = [];
  try {
    const budget = { chars: 0 };
    for (let i = 0; i < args.length; i += 1) parts[i] = encode(args[i], 0, budget);
  } catch (err) {
    return { ok: false, name: 'TypeError', message: `the arguments of a function of the tests must be plain data: ${describe(err)}` };
  }
  writeAll(`{"callback":${stringify(index)},"args":[${parts.join(',')}]}\n`);
  const line = readRequest();
  if (line === null) process.exit(0); // the judge has gone
  const answer = parse(line);
  if (answer.op !== 'answer') return { ok: false, name: 'Error', message: 'the judge did not answer the call back' };
  if (answer.ok === true) return { ok: true, value: realm.decodeValue(stringify(answer.value)) };
  return { ok: false, name: StringCtor(answer.name), message: StringCtor(answer.message) };
}

function invoke(request) {
  const fn = exported(StringCtor(request.name));
  if (typeof fn !== 'function') {
    reply.fail(`the program does not export a function ${StringCtor(request.name)}()`);
    return;
  }
  const args = realm.decodeArgs(stringify(request.args));
  let value;
  let wire;
  let error = null;
  realm.takePrinted(); // what loading or an earlier request logged is not this call's
  try {
    value = ReflectApply(fn, undefined, args);
  } catch (err) {
    error = `{"ok":false,"error":${stringify(describe(err))},"name":${stringify(errorName(err))},"message":${stringify(errorMessage(err))}}`;
  }
  const printed = printedText(realm.takePrinted());
  if (error === null) {
    try {
      wire = encode(value, 0, { chars: 0 });
    } catch (err) {
      error = `{"ok":false,"error":${stringify(`the output cannot be sent back: ${describe(err)}`)},"name":"TypeError"}`;
    }
  }
  const changed = [];
  for (let i = 0; i < args.length; i += 1) {
    const kind = typeof args[i];
    if (args[i] === null || (kind !== 'object' && kind !== 'function')) continue; // a string cannot change (base64-js's 89 MB one)
    const after = encodeArgs(args[i]);
    if (after === null) {
      error = '{"ok":false,"error":"an argument the call changed cannot be sent back","name":"TypeError"}';
    } else if (after !== stringify(request.args[i])) changed[changed.length] = `${stringify(StringCtor(i))}:${after}`;
  }
  const changedText = `{${changed.join(',')}}`;
  if (error !== null) writeAll(`${stringSlice(error, 0, -1)},"changed":${changedText}${printed}}\n`);
  else writeAll(`{"ok":true,"type":${stringify(typeof value)},"value":${wire},"changed":${changedText}${printed}}\n`);
}

/**
 * `,"printed":[[method, text], ...]` for what the call logged on the realm's console (realm
 * takePrinted), or '': its entries are the realm's own arrays of strings, read by index (own
 * data properties only: the realm made them with defineProperty).
 */
function printedText(entries) {
  const parts = [];
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i];
    if (typeof entry[0] === 'string' && typeof entry[1] === 'string') parts[parts.length] = `[${stringify(entry[0])},${stringify(entry[1])}]`;
  }
  return parts.length === 0 ? '' : `,"printed":[${parts.join(',')}]`;
}

function describeExports() {
  const names = typeof exportsObject === 'function' ? ['"":{"kind":"function"}'] : [];
  const keys = exportsObject !== null && (typeof exportsObject === 'object' || typeof exportsObject === 'function') ? ObjectKeys(exportsObject) : [];
  for (const name of keys) {
    const value = exported(name);
    let text;
    if (typeof value === 'function') text = '{"kind":"function"}';
    else {
      try {
        text = `{"kind":"value","value":${encode(value, 0, { chars: 0 })}}`;
      } catch {
        text = `{"kind":"unsupported","what":${stringify(typeof value)}}`;
      }
    }
    names[names.length] = `${stringify(StringCtor(name))}:${text}`;
  }
  writeAll(`{"ok":true,"names":{${names.join(',')}}}\n`);
}

function echo(request) {
  // Same shape and size as a call's reply, without touching candidate code.
  reply.ok('string', `"${stringRepeat('x', request.chars)}"`, false);
}

async function main() {
  for (;;) {
    const line = readRequest();
    if (line === null) return;
    const request = parse(line);
    if (request.op === 'echo') echo(request);
    else if (request.op === 'prepare' || request.op === 'call' || request.op === 'batch' || request.op === 'changed') {
      if (entryFunction === null) reply.fail('no program is loaded');
      else if (request.op === 'prepare') prepare(request);
      else if (request.op === 'call') call();
      else if (request.op === 'batch') batch(request);
      else changed();
    } else if (request.op === 'invoke') invoke(request);
    else if (request.op === 'describe') describeExports(); else if (request.op === 'load') {
      if (loaded) reply.fail('a program is already loaded');
      else {
        try {
          await load(request);
          reply.loaded();
        } catch (err) {
          entryFunction = null;
          reply.fail(describe(err));
        }
      }
    } else reply.fail(`unknown request ${stringify(request.op)}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    try {
      writeSync(2, `peagen-harness child failure: ${describe(err)}\n`);
    } finally {
      process.exit(70);
    }
  },
);
