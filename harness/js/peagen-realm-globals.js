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
          if (d === 's') text += typeof arg === 'string' ? arg : show(arg, 1);
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
  const decodeUtf8 = (bytes, fatal) => {
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
    for (let i = 0; i < bytes.length; i += 1) {
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
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') {
      const text = StringCtor(input);
      const bytes = [];
      const push = (b) => put(bytes, bytes.length, b);
      for (let i = 0; i < text.length; i += 1) {
        let c = charCodeAt(text, i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && charCodeAt(text, i + 1) >= 0xdc00 && charCodeAt(text, i + 1) <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (charCodeAt(text, i + 1) - 0xdc00);
          i += 1;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) push(c);
        else if (c < 0x800) { push(0xc0 | (c >> 6)); push(0x80 | (c & 0x3f)); }
        else if (c < 0x10000) { push(0xe0 | (c >> 12)); push(0x80 | ((c >> 6) & 0x3f)); push(0x80 | (c & 0x3f)); }
        else { push(0xf0 | (c >> 18)); push(0x80 | ((c >> 12) & 0x3f)); push(0x80 | ((c >> 6) & 0x3f)); push(0x80 | (c & 0x3f)); }
      }
      return new Uint8(bytes);
    }
  }
  return { console, TextDecoder, TextEncoder, takePrinted };
}

module.exports = { realmGlobals };
