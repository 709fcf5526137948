'use strict';
/*
 * What programs use beyond the language's own globals, for the candidate's realm: made there
 * from its own built-ins, never the runner's objects. peagen-harness-child.js compiles this
 * function's source inside the realm (REALM_BOOTSTRAP runs it before the candidate loads); it
 * never runs in the runner's realm.
 *  - console: what a call logs is kept (PRINTED_CHARS at most) and sent back with its answer
 *    (takePrinted), and peagen-standin.js logs it in the tests' process, so a test that spies on
 *    console judges the candidate's output as it judged the original's. Formatted here, while
 *    the call runs: nothing of the candidate's runs when the runner reads it.
 *  - TextEncoder and TextDecoder (UTF-8, UTF-16LE and windows-1252, WHATWG's decoding with
 *    replacement or `fatal`), as Node gives them.
 *  - URL and URLSearchParams, as Node gives them (normalize-url, query-string... construct,
 *    read and set URLs). The parsing is Node's own URL in the runner, reached through a loader
 *    the runner hands this code (setUrlLoader, as the child's relativeLoader and callbackLoader):
 *    kept in this closure, called with strings only, answered with a record of strings this code
 *    copies field by field. A URL's record and its loader are private (#fields, closures), its
 *    errors this realm's TypeErrors with Node's messages and codes. URLSearchParams is made here
 *    whole (WHATWG's application/x-www-form-urlencoded, with Node's decoding where an escape is
 *    not UTF-8), kept in step with its URL both ways. console shows both as Node's inspect does.
 */
function realmGlobals(put, freeze) {
  'use strict';
  const StringCtor = String;
  const fromCharCode = String.fromCharCode;
  const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt);
  const toLowerCase = Function.prototype.call.bind(String.prototype.toLowerCase);
  const trim = Function.prototype.call.bind(String.prototype.trim);
  const sliceString = Function.prototype.call.bind(String.prototype.slice);
  const indexOf = Function.prototype.call.bind(String.prototype.indexOf);
  const repeat = Function.prototype.call.bind(String.prototype.repeat);
  const isArray = Array.isArray;
  const objectKeys = Object.keys;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8 = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const dateToISO = Function.prototype.call.bind(Date.prototype.toISOString);
  const DateCtor = Date;
  const MapCtor = Map;
  const SetCtor = Set;
  const numberIsNaN = Number.isNaN;
  const objectIs = Object.is;
  const JSONStringify = JSON.stringify;

  const PRINTED_CHARS = 1048576;
  let printed = [];
  let printedChars = 0;
  const identifier = /^[A-Za-z_$][0-9A-Za-z_$]*$/;
  const testRegExp = Function.prototype.call.bind(RegExp.prototype.test);
  const quote = (text) => "'" + text + "'";
  // Node's util.inspect, in short: what a log line says of a value.
  const show = (value, depth) => {
    const type = typeof value;
    if (type === 'string') return depth === 0 ? value : quote(value);
    if (type === 'number') return objectIs(value, -0) ? '-0' : StringCtor(value);
    if (type === 'bigint') return StringCtor(value) + 'n';
    if (type === 'symbol' || type === 'boolean' || type === 'undefined' || value === null) return StringCtor(value);
    if (type === 'function') return '[Function: ' + (value.name ? StringCtor(value.name) : '(anonymous)') + ']';
    if (value instanceof ErrorCtor) return StringCtor(value.stack || value);
    if (value instanceof DateCtor) return numberIsNaN(value.getTime()) ? 'Invalid Date' : dateToISO(value);
    if (isParams(value)) {
      const list = paramsList(value);
      let text = '';
      for (let i = 0; i < list.length; i += 2) text += (i === 0 ? '' : ', ') + quote(list[i]) + ' => ' + quote(list[i + 1]);
      return 'URLSearchParams ' + (text === '' ? '{}' : '{ ' + text + ' }');
    }
    if (isUrl(value)) {
      // Node's layout, one field a line.
      const record = recordOf(value);
      const indent = repeat('  ', depth + 1);
      let text = 'URL {';
      for (let i = 0; i < URL_FIELDS.length; i += 1) {
        text += (i === 0 ? '\n' : ',\n') + indent + URL_FIELDS[i] + ': ' + quote(record[URL_FIELDS[i]]);
        if (URL_FIELDS[i] === 'search') text += ',\n' + indent + 'searchParams: ' + show(searchParamsOf(value), depth + 1);
      }
      return text + '\n' + sliceString(indent, 2) + '}';
    }
    if (depth > 2) return isArray(value) ? '[Array]' : '[Object]';
    if (value instanceof MapCtor || value instanceof SetCtor) {
      let text = '';
      let n = 0;
      value.forEach((item, key) => {
        text += (n === 0 ? '' : ', ') + (value instanceof MapCtor ? show(key, depth + 1) + ' => ' : '') + show(item, depth + 1);
        n += 1;
      });
      return (value instanceof MapCtor ? 'Map(' : 'Set(') + n + ') ' + (n === 0 ? '{}' : '{ ' + text + ' }');
    }
    if (isArray(value)) {
      if (value.length === 0) return '[]';
      let text = '';
      for (let i = 0; i < value.length && i < 100; i += 1) text += (i === 0 ? '' : ', ') + show(value[i], depth + 1);
      if (value.length > 100) text += ', ... ' + (value.length - 100) + ' more items';
      return '[ ' + text + ' ]';
    }
    const keys = objectKeys(value);
    if (keys.length === 0) return '{}';
    let text = '';
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i];
      text += (i === 0 ? '' : ', ') + (testRegExp(identifier, key) ? key : quote(key)) + ': ' + show(value[key], depth + 1);
    }
    return '{ ' + text + ' }';
  };
  // util.format: %s %d %i %f %j %o %O %c %% in a first string argument, the rest shown after.
  const format = (args) => {
    let text = '';
    let next = 0;
    if (typeof args[0] === 'string' && args.length > 1 && indexOf(args[0], '%') >= 0) {
      const pattern = args[0];
      next = 1;
      for (let i = 0; i < pattern.length; i += 1) {
        const c = pattern[i];
        const d = pattern[i + 1];
        if (c !== '%' || d === undefined) {
          text += c;
        } else if (d === '%') {
          text += '%';
          i += 1;
        } else if (next < args.length && (d === 's' || d === 'd' || d === 'i' || d === 'f' || d === 'j' || d === 'o' || d === 'O' || d === 'c')) {
          const arg = args[next];
          next += 1;
          i += 1;
          // A URL's own toString, as Node's (a class's toString is not a built-in one).
          if (d === 's') text += typeof arg === 'string' ? arg : isUrl(arg) || isParams(arg) ? StringCtor(arg) : show(arg, 1);
          else if (d === 'd' || d === 'i') text += typeof arg === 'bigint' ? StringCtor(arg) + 'n' : StringCtor(d === 'i' ? Math.trunc(Number(arg)) : Number(arg));
          else if (d === 'f') text += StringCtor(Number(arg));
          else if (d === 'j') text += JSONStringify(arg);
          else if (d !== 'c') text += show(arg, 1);
        } else {
          text += c;
        }
      }
    }
    for (let i = next; i < args.length; i += 1) text += (text === '' && i === 0 ? '' : ' ') + show(args[i], 0);
    return text;
  };
  const record = (method, text) => {
    if (printedChars >= PRINTED_CHARS) return;
    const kept = sliceString(text, 0, PRINTED_CHARS - printedChars);
    printedChars += kept.length;
    put(printed, printed.length, [method, kept]);
  };
  const logger = (method) => function (...args) {
    record(method, format(args));
  };
  const console = freeze({
    log: logger('log'), info: logger('info'), debug: logger('debug'), warn: logger('warn'), error: logger('error'),
    trace: logger('error'), dir: (value) => record('log', show(value, 0)), table: (value) => record('log', show(value, 0)),
    assert: (ok, ...args) => { if (!ok) record('error', 'Assertion failed' + (args.length ? ': ' + format(args) : '')); },
    group: logger('log'), groupCollapsed: logger('log'), groupEnd() {}, time() {}, timeEnd() {}, timeLog() {}, count() {}, countReset() {},
  });
  const takePrinted = () => {
    const taken = printed;
    printed = [];
    printedChars = 0;
    return taken;
  };

  // ---- text codecs
  const WINDOWS_1252 = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
    0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
  const LABELS = {
    'utf-8': 'utf-8', utf8: 'utf-8', 'unicode-1-1-utf-8': 'utf-8',
    'utf-16le': 'utf-16le', 'utf-16': 'utf-16le',
    latin1: 'windows-1252', 'iso-8859-1': 'windows-1252', 'iso8859-1': 'windows-1252', ascii: 'windows-1252', 'us-ascii': 'windows-1252',
    'windows-1252': 'windows-1252', cp1252: 'windows-1252', l1: 'windows-1252',
  };
  const bytesOf = (input) => {
    if (input === undefined) return new Uint8(0);
    if (input instanceof ArrayBufferCtor) return new Uint8(input);
    if (isView(input)) return new Uint8(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeErrorCtor('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView.');
  };
  const invalid = (encoding) => new TypeErrorCtor('The encoded data was not valid for encoding ' + encoding);
  const decodeUtf8 = (bytes, fatal, end = bytes.length) => {
    let out = '';
    let codePoint = 0;
    let needed = 0;
    let seen = 0;
    let lower = 0x80;
    let upper = 0xbf;
    const emit = (cp) => {
      if (cp > 0xffff) {
        cp -= 0x10000;
        out += fromCharCode(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      } else out += fromCharCode(cp);
    };
    for (let i = 0; i < end; i += 1) {
      const byte = bytes[i];
      if (needed === 0) {
        if (byte <= 0x7f) emit(byte);
        else if (byte >= 0xc2 && byte <= 0xdf) { needed = 1; codePoint = byte & 0x1f; }
        else if (byte >= 0xe0 && byte <= 0xef) { if (byte === 0xe0) lower = 0xa0; if (byte === 0xed) upper = 0x9f; needed = 2; codePoint = byte & 0xf; }
        else if (byte >= 0xf0 && byte <= 0xf4) { if (byte === 0xf0) lower = 0x90; if (byte === 0xf4) upper = 0x8f; needed = 3; codePoint = byte & 0x7; }
        else { if (fatal) throw invalid('utf-8'); emit(0xfffd); }
        continue;
      }
      if (byte < lower || byte > upper) {
        codePoint = needed = seen = 0;
        lower = 0x80;
        upper = 0xbf;
        if (fatal) throw invalid('utf-8');
        emit(0xfffd);
        i -= 1; // the byte starts again
        continue;
      }
      lower = 0x80;
      upper = 0xbf;
      codePoint = (codePoint << 6) | (byte & 0x3f);
      seen += 1;
      if (seen === needed) {
        emit(codePoint);
        codePoint = needed = seen = 0;
      }
    }
    if (needed !== 0) {
      if (fatal) throw invalid('utf-8');
      emit(0xfffd);
    }
    return out;
  };
  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const encoding = LABELS[toLowerCase(trim(StringCtor(label)))];
      if (encoding === undefined) throw new RangeErrorCtor('The "' + StringCtor(label) + '" encoding is not supported');
      this.#encoding = encoding;
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input) {
      const bytes = bytesOf(input);
      let out = '';
      if (this.#encoding === 'utf-8') out = decodeUtf8(bytes, this.#fatal);
      else if (this.#encoding === 'windows-1252') {
        for (let i = 0; i < bytes.length; i += 1) out += fromCharCode(bytes[i] >= 0x80 && bytes[i] < 0xa0 ? WINDOWS_1252[bytes[i] - 0x80] : bytes[i]);
      } else {
        // Code units; a surrogate without its pair is replaced (or refused), as WHATWG's decoder does.
        const units = bytes.length >> 1;
        for (let i = 0; i < units; i += 1) {
          const unit = bytes[2 * i] | (bytes[2 * i + 1] << 8);
          const next = i + 1 < units ? bytes[2 * i + 2] | (bytes[2 * i + 3] << 8) : -1;
          if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
            out += fromCharCode(unit, next);
            i += 1;
          } else if (unit >= 0xd800 && unit <= 0xdfff) {
            if (this.#fatal) throw invalid('utf-16le');
            // A lead surrogate that ends the units, before an odd last byte: one replacement for both.
            if (!(i + 1 === units && unit <= 0xdbff && bytes.length % 2 === 1)) out += fromCharCode(0xfffd);
          } else out += fromCharCode(unit);
        }
        if (bytes.length % 2 === 1) {
          if (this.#fatal) throw invalid('utf-16le');
          out += fromCharCode(0xfffd);
        }
      }
      return !this.#ignoreBOM && charCodeAt(out, 0) === 0xfeff ? sliceString(out, 1) : out;
    }
  }
  // A string's UTF-8 bytes (a lone surrogate is U+FFFD's): counted, then written (an array grown
  // by defineProperty took microseconds a byte; a typed array runs no setter of the program's).
  const utf8Bytes = (text) => {
    let n = 0;
    for (let i = 0; i < text.length; i += 1) {
      const c = charCodeAt(text, i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && charCodeAt(text, i + 1) >= 0xdc00 && charCodeAt(text, i + 1) <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    }
    const bytes = new Uint8(n);
    let at = 0;
    for (let i = 0; i < text.length; i += 1) {
      let c = charCodeAt(text, i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && charCodeAt(text, i + 1) >= 0xdc00 && charCodeAt(text, i + 1) <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (charCodeAt(text, i + 1) - 0xdc00);
        i += 1;
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) bytes[at++] = c;
      else if (c < 0x800) { bytes[at++] = 0xc0 | (c >> 6); bytes[at++] = 0x80 | (c & 0x3f); }
      else if (c < 0x10000) { bytes[at++] = 0xe0 | (c >> 12); bytes[at++] = 0x80 | ((c >> 6) & 0x3f); bytes[at++] = 0x80 | (c & 0x3f); }
      else { bytes[at++] = 0xf0 | (c >> 18); bytes[at++] = 0x80 | ((c >> 12) & 0x3f); bytes[at++] = 0x80 | ((c >> 6) & 0x3f); bytes[at++] = 0x80 | (c & 0x3f); }
    }
    return bytes;
  };
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') {
      return utf8Bytes(StringCtor(input));
    }
  }

  // ---- URL and URLSearchParams
  // Parsing is Node's own URL, in the runner: it hands this realm a loader (setUrlLoader) that
  // this code alone holds and calls with strings only; its answer is a record of strings, copied
  // here field by field and never kept or handed on. The objects a program sees are this realm's.
  const URL_FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  const toWellFormed = Function.prototype.call.bind(String.prototype.toWellFormed);
  const sortArray = Function.prototype.call.bind(Array.prototype.sort);
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const setPrototypeOf = Object.setPrototypeOf;
  const reflectOwnKeys = Reflect.ownKeys;
  const deleteProperty = Reflect.deleteProperty;
  const reflectApply = Reflect.apply;
  const symbolIterator = Symbol.iterator;
  const symbolToStringTag = Symbol.toStringTag;
  const IteratorPrototype = getPrototypeOf(getPrototypeOf([][symbolIterator]()));
  let urlLoader = null;
  // op 'parse' (input, base | undefined), 'set' (href, component, value) or 'check' (input, base):
  // {ok: true, <URL_FIELDS>} or {ok: false, message}.
  const askRunner = (op, a, b, c) => {
    if (urlLoader === null) throw new ErrorCtor('URL is not available here');
    let answer;
    try {
      answer = urlLoader(op, a, b, c);
    } catch {
      // The runner answers every URL, valid or not: what throws there is its own limit (the
      // stack the program had used up), and that error is of its realm, never passed on.
      throw new RangeErrorCtor('Maximum call stack size exceeded');
    }
    if (answer.ok !== true) {
      const message = answer.message;
      return { __proto__: null, ok: false, message: typeof message === 'string' ? message : 'Invalid URL' };
    }
    const record = { __proto__: null, ok: true };
    for (let i = 0; i < URL_FIELDS.length; i += 1) {
      const value = answer[URL_FIELDS[i]];
      record[URL_FIELDS[i]] = typeof value === 'string' ? value : '';
    }
    return record;
  };
  const withCode = (error, code, extra) => {
    defineProperty(error, 'code', { __proto__: null, value: code, writable: true, enumerable: true, configurable: true });
    if (extra !== undefined) {
      const keys = objectKeys(extra);
      for (let i = 0; i < keys.length; i += 1) defineProperty(error, keys[i], { __proto__: null, value: extra[keys[i]], writable: true, enumerable: true, configurable: true });
    }
    return error;
  };
  const missingArgs = (what) => withCode(new TypeErrorCtor('The ' + what + ' must be specified'), 'ERR_MISSING_ARGS');
  const invalidUrl = (message, input, base) =>
    withCode(new TypeErrorCtor(message), 'ERR_INVALID_URL', base === undefined ? { __proto__: null, input } : { __proto__: null, input, base });
  const invalidThis = (type) => withCode(new TypeErrorCtor('Value of "this" must be of type ' + type), 'ERR_INVALID_THIS');
  const isObject = (value) => value !== null && (typeof value === 'object' || typeof value === 'function');
  const usv = (value) => toWellFormed(`${value}`);
  // Lists only this code sees: without a prototype, so that growing one runs no setter a program
  // put on Array.prototype (defineProperty, as put does, took microseconds an item).
  const newList = () => setPrototypeOf([], null);
  const append = (list, value) => {
    list[list.length] = value;
  };

  // application/x-www-form-urlencoded, as WHATWG's URL standard says.
  const HEX = '0123456789ABCDEF';
  const formSafe = (c) => c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  const formEncode = (text) => {
    let i = 0;
    while (i < text.length && formSafe(charCodeAt(text, i))) i += 1;
    if (i === text.length) return text;
    let out = sliceString(text, 0, i);
    for (; i < text.length; i += 1) {
      const c = charCodeAt(text, i);
      if (formSafe(c)) out += text[i];
      else if (c === 0x20) out += '+';
      else {
        const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && charCodeAt(text, i + 1) >= 0xdc00 && charCodeAt(text, i + 1) <= 0xdfff;
        const bytes = utf8Bytes(pair ? sliceString(text, i, i + 2) : text[i]);
        if (pair) i += 1;
        for (let k = 0; k < bytes.length; k += 1) out += '%' + HEX[bytes[k] >> 4] + HEX[bytes[k] & 15];
      }
    }
    return out;
  };
  const hexValue = (b) => (b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x41 && b <= 0x46 ? b - 0x37 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1);
  // Node's decoding: '+' is a space; when a %XX is there, decodeURIComponent, and where that
  // refuses (an escape that is not UTF-8, a stray '%'), querystring's unescapeBuffer: every other
  // character one byte (its code's low eight bits), the bytes decoded as UTF-8 with replacement.
  const decodeComponent = decodeURIComponent;
  const formDecode = (text) => {
    const plus = indexOf(text, '+') >= 0;
    let escaped = false;
    for (let at = indexOf(text, '%'); at >= 0 && !escaped; at = indexOf(text, '%', at + 1)) {
      escaped = at + 2 < text.length && hexValue(charCodeAt(text, at + 1)) >= 0 && hexValue(charCodeAt(text, at + 2)) >= 0;
    }
    if (!plus && !escaped) return text;
    let spaced = text;
    if (plus) {
      spaced = '';
      for (let i = 0; i < text.length; i += 1) spaced += text[i] === '+' ? ' ' : text[i];
    }
    if (!escaped) return spaced;
    try {
      return decodeComponent(spaced);
    } catch {
      const bytes = new Uint8(spaced.length);
      let n = 0;
      for (let i = 0; i < spaced.length; i += 1) {
        const c = charCodeAt(spaced, i);
        if (c === 0x25 && i + 2 < spaced.length && hexValue(charCodeAt(spaced, i + 1)) >= 0 && hexValue(charCodeAt(spaced, i + 2)) >= 0) {
          bytes[n++] = hexValue(charCodeAt(spaced, i + 1)) * 16 + hexValue(charCodeAt(spaced, i + 2));
          i += 2;
        } else bytes[n++] = c & 0xff;
      }
      return decodeUtf8(bytes, false, n);
    }
  };
  // A query (without its '?') as the list [name, value, name, value, ...].
  const parseQuery = (query) => {
    const list = newList();
    let start = 0;
    while (start < query.length) {
      let end = indexOf(query, '&', start);
      if (end < 0) end = query.length;
      if (end > start) {
        const eq = indexOf(query, '=', start);
        const split = eq >= 0 && eq < end;
        append(list, formDecode(sliceString(query, start, split ? eq : end)));
        append(list, split ? formDecode(sliceString(query, eq + 1, end)) : '');
      }
      start = end + 1;
    }
    return list;
  };
  const serializeList = (list) => {
    let out = '';
    for (let i = 0; i < list.length; i += 2) out += (i === 0 ? '' : '&') + formEncode(list[i]) + '=' + formEncode(list[i + 1]);
    return out;
  };
  const received = (value) => {
    if (value === undefined || value === null) return 'Received ' + StringCtor(value);
    if (typeof value === 'function') return 'Received function ' + StringCtor(value.name);
    if (typeof value === 'object') return value.constructor && value.constructor.name ? 'Received an instance of ' + StringCtor(value.constructor.name) : 'Received ' + show(value, 1);
    let shown = show(value, 1);
    if (shown.length > 28) shown = sliceString(shown, 0, 25) + '...';
    return 'Received type ' + typeof value + ' (' + shown + ')';
  };

  let paramsList; // (params) -> its list, after the brand check
  let isParams; // (value) -> whether it is a URLSearchParams (never throws)
  let paramsOfUrl; // (url, list) -> the URLSearchParams of that URL
  let paramsReplace; // (params, list): its URL's query changed
  let urlSetQuery; // (url, serialized): its URLSearchParams changed
  class URLSearchParams {
    #list = newList();
    #url = null;
    constructor(init = undefined) {
      if (init === undefined) return;
      if (!isObject(init)) {
        const text = usv(init);
        this.#list = parseQuery(charCodeAt(text, 0) === 0x3f ? sliceString(text, 1) : text);
        return;
      }
      const method = init[symbolIterator];
      if (method !== undefined && method !== null) {
        if (typeof method !== 'function') throw withCode(new TypeErrorCtor('Query pairs must be iterable'), 'ERR_ARG_NOT_ITERABLE');
        const pairs = newList();
        for (const pair of init) {
          if (!isObject(pair) || typeof pair[symbolIterator] !== 'function') throw withCode(new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple'), 'ERR_INVALID_TUPLE');
          const items = newList();
          for (const item of pair) append(items, item);
          append(pairs, items);
        }
        for (let i = 0; i < pairs.length; i += 1) {
          if (pairs[i].length !== 2) throw withCode(new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple'), 'ERR_INVALID_TUPLE');
          append(this.#list, usv(pairs[i][0]));
          append(this.#list, usv(pairs[i][1]));
        }
        return;
      }
      // A record: its own enumerable keys; a key twice once made well-formed keeps its last value.
      const keys = reflectOwnKeys(init);
      for (let i = 0; i < keys.length; i += 1) {
        const own = getOwnPropertyDescriptor(init, keys[i]);
        if (own === undefined || !own.enumerable) continue;
        const name = usv(keys[i]);
        const value = usv(init[keys[i]]);
        const list = this.#list;
        let k = 0;
        while (k < list.length && list[k] !== name) k += 2;
        if (k < list.length) list[k + 1] = value;
        else { append(list, name); append(list, value); }
      }
    }
    static {
      isParams = (value) => isObject(value) && #list in value;
      paramsList = (params) => {
        if (!isObject(params) || !(#list in params)) throw invalidThis('URLSearchParams');
        return params.#list;
      };
      paramsOfUrl = (url, list) => {
        const params = new URLSearchParams();
        params.#list = list;
        params.#url = url;
        return params;
      };
      paramsReplace = (params, list) => { params.#list = list; };
    }
    #update() {
      if (this.#url !== null) urlSetQuery(this.#url, serializeList(this.#list));
    }
    get size() { return paramsList(this).length / 2; }
    append(name, value) {
      const list = paramsList(this);
      if (arguments.length < 2) throw missingArgs('"name" and "value" arguments');
      append(list, usv(name));
      append(list, usv(value));
      this.#update();
    }
    delete(name, value = undefined) {
      const list = paramsList(this);
      if (arguments.length < 1) throw missingArgs('"name" argument');
      const key = usv(name);
      const only = value === undefined ? undefined : usv(value);
      const kept = newList();
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === key && (only === undefined || list[i + 1] === only)) continue;
        append(kept, list[i]);
        append(kept, list[i + 1]);
      }
      this.#list = kept;
      this.#update();
    }
    get(name) {
      const list = paramsList(this);
      if (arguments.length < 1) throw missingArgs('"name" argument');
      const key = usv(name);
      for (let i = 0; i < list.length; i += 2) if (list[i] === key) return list[i + 1];
      return null;
    }
    getAll(name) {
      const list = paramsList(this);
      if (arguments.length < 1) throw missingArgs('"name" argument');
      const key = usv(name);
      const values = [];
      for (let i = 0; i < list.length; i += 2) if (list[i] === key) put(values, values.length, list[i + 1]);
      return values;
    }
    has(name, value = undefined) {
      const list = paramsList(this);
      if (arguments.length < 1) throw missingArgs('"name" argument');
      const key = usv(name);
      const only = value === undefined ? undefined : usv(value);
      for (let i = 0; i < list.length; i += 2) if (list[i] === key && (only === undefined || list[i + 1] === only)) return true;
      return false;
    }
    set(name, value) {
      const list = paramsList(this);
      if (arguments.length < 2) throw missingArgs('"name" and "value" arguments');
      const key = usv(name);
      const text = usv(value);
      const kept = newList();
      let found = false;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === key) {
          if (found) continue;
          found = true;
          append(kept, key);
          append(kept, text);
        } else {
          append(kept, list[i]);
          append(kept, list[i + 1]);
        }
      }
      if (!found) { append(kept, key); append(kept, text); }
      this.#list = kept;
      this.#update();
    }
    sort() {
      const list = paramsList(this);
      const pairs = newList();
      for (let i = 0; i < list.length; i += 2) append(pairs, [list[i], list[i + 1]]);
      // Stable, by UTF-16 code units (what < compares).
      sortArray(pairs, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const sorted = newList();
      for (let i = 0; i < pairs.length; i += 1) { append(sorted, pairs[i][0]); append(sorted, pairs[i][1]); }
      this.#list = sorted;
      this.#update();
    }
    entries() { paramsList(this); return new ParamsIterator(this, 'entries'); }
    forEach(callback, thisArg = undefined) {
      let list = paramsList(this);
      if (typeof callback !== 'function') throw withCode(new TypeErrorCtor('The "callback" argument must be of type function. ' + received(callback)), 'ERR_INVALID_ARG_TYPE');
      for (let i = 0; i < list.length; i += 2) {
        reflectApply(callback, thisArg, [list[i + 1], list[i], this]);
        list = this.#list; // the URL's query may have been set meanwhile
      }
    }
    keys() { paramsList(this); return new ParamsIterator(this, 'keys'); }
    values() { paramsList(this); return new ParamsIterator(this, 'values'); }
    toString() { return serializeList(paramsList(this)); }
  }
  // Live, as Node's: each step reads the list as it is then.
  class ParamsIterator {
    #params;
    #kind;
    #index = 0;
    constructor(params, kind) {
      this.#params = params;
      this.#kind = kind;
    }
    next() {
      if (!isObject(this) || !(#params in this)) throw invalidThis('URLSearchParamsIterator');
      const list = paramsList(this.#params);
      const i = this.#index;
      if (i >= list.length) return { value: undefined, done: true };
      this.#index = i + 2;
      return { value: this.#kind === 'keys' ? list[i] : this.#kind === 'values' ? list[i + 1] : [list[i], list[i + 1]], done: false };
    }
  }
  setPrototypeOf(ParamsIterator.prototype, IteratorPrototype);
  deleteProperty(ParamsIterator.prototype, 'constructor'); // an iterator's constructor is Iterator, as Node's

  const FROM_RECORD = freeze({}); // URL.parse's token: the record is already parsed
  let recordOf; // (url) -> its record, after the brand check
  let isUrl; // (value) -> whether it is a URL (never throws)
  let setComponent; // (url, component, value): one component set, as Node's setter does
  let setHref; // (url, value)
  let searchParamsOf; // (url) -> its URLSearchParams, made once
  class URL {
    #record;
    #params = null;
    constructor(input, base = undefined) {
      if (input === FROM_RECORD) {
        this.#record = base;
        return;
      }
      if (arguments.length === 0) throw missingArgs('"url" argument');
      const text = `${input}`;
      const baseText = base === undefined ? undefined : `${base}`;
      const record = askRunner('parse', text, baseText);
      if (!record.ok) throw invalidUrl(record.message, text, baseText);
      this.#record = record;
    }
    static parse(input, base = undefined) {
      if (arguments.length === 0) throw missingArgs('"url" argument');
      const record = askRunner('parse', `${input}`, base === undefined ? undefined : `${base}`);
      return record.ok ? new URL(FROM_RECORD, record) : null;
    }
    static canParse(input, base = undefined) {
      if (arguments.length === 0) throw missingArgs('"url" argument');
      return askRunner('check', `${input}`, base === undefined ? undefined : `${base}`).ok;
    }
    static {
      isUrl = (value) => isObject(value) && #record in value;
      recordOf = (url) => {
        if (!isObject(url) || !(#record in url)) throw new TypeErrorCtor('Receiver must be an instance of class URL');
        return url.#record;
      };
      const replace = (url, record) => {
        const before = url.#record;
        url.#record = record;
        if (url.#params !== null && record.search !== before.search) paramsReplace(url.#params, parseQuery(sliceString(record.search, 1)));
      };
      setComponent = (url, component, value) => {
        const record = recordOf(url);
        const next = askRunner('set', record.href, component, `${value}`);
        if (next.ok) replace(url, next);
      };
      urlSetQuery = (url, serialized) => {
        const next = askRunner('set', url.#record.href, 'search', serialized);
        if (next.ok) url.#record = next;
      };
      searchParamsOf = (url) => {
        recordOf(url);
        if (url.#params === null) url.#params = paramsOfUrl(url, parseQuery(sliceString(url.#record.search, 1)));
        return url.#params;
      };
      setHref = (url, value) => {
        recordOf(url);
        const text = `${value}`;
        const record = askRunner('parse', text, undefined);
        if (!record.ok) throw invalidUrl(record.message, text, undefined);
        replace(url, record);
      };
    }
    toString() { return recordOf(this).href; }
    get href() { return recordOf(this).href; }
    set href(value) { setHref(this, value); }
    get origin() { return recordOf(this).origin; }
    get protocol() { return recordOf(this).protocol; }
    set protocol(value) { setComponent(this, 'protocol', value); }
    get username() { return recordOf(this).username; }
    set username(value) { setComponent(this, 'username', value); }
    get password() { return recordOf(this).password; }
    set password(value) { setComponent(this, 'password', value); }
    get host() { return recordOf(this).host; }
    set host(value) { setComponent(this, 'host', value); }
    get hostname() { return recordOf(this).hostname; }
    set hostname(value) { setComponent(this, 'hostname', value); }
    get port() { return recordOf(this).port; }
    set port(value) { setComponent(this, 'port', value); }
    get pathname() { return recordOf(this).pathname; }
    set pathname(value) { setComponent(this, 'pathname', value); }
    get search() { return recordOf(this).search; }
    set search(value) { setComponent(this, 'search', value); }
    get searchParams() { return searchParamsOf(this); }
    get hash() { return recordOf(this).hash; }
    set hash(value) { setComponent(this, 'hash', value); }
    toJSON() { return recordOf(this).href; }
  }
  // As Node's (WebIDL's): members enumerable, a tag for Object.prototype.toString, entries the iterator.
  const enumerable = (target, names) => {
    for (let i = 0; i < names.length; i += 1) {
      const own = getOwnPropertyDescriptor(target, names[i]);
      own.enumerable = true;
      defineProperty(target, names[i], own);
    }
  };
  const members = (proto) => {
    const names = [];
    const keys = reflectOwnKeys(proto);
    for (let i = 0; i < keys.length; i += 1) if (typeof keys[i] === 'string' && keys[i] !== 'constructor') put(names, names.length, keys[i]);
    return names;
  };
  enumerable(URL, ['parse', 'canParse']);
  enumerable(URL.prototype, members(URL.prototype));
  enumerable(URLSearchParams.prototype, members(URLSearchParams.prototype));
  enumerable(ParamsIterator.prototype, ['next']);
  defineProperty(URLSearchParams.prototype, symbolIterator, { __proto__: null, value: URLSearchParams.prototype.entries, writable: true, configurable: true });
  defineProperty(URL.prototype, symbolToStringTag, { __proto__: null, value: 'URL', configurable: true });
  defineProperty(URLSearchParams.prototype, symbolToStringTag, { __proto__: null, value: 'URLSearchParams', configurable: true });
  defineProperty(ParamsIterator.prototype, symbolToStringTag, { __proto__: null, value: 'URLSearchParams Iterator', configurable: true });
  // The runner's loader, set once before the program loads.
  const setUrlLoader = (loader) => {
    if (urlLoader === null) urlLoader = loader;
  };
  return { console, TextDecoder, TextEncoder, URL, URLSearchParams, takePrinted, setUrlLoader };
}

module.exports = { realmGlobals };
