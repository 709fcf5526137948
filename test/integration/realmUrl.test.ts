/**
 * URL and URLSearchParams in the JavaScript candidate's realm (harness/js/peagen-realm-globals.js),
 * through the real harness child: what a program that builds, reads and edits URLs gets must be
 * what Node's own URL gives (the parsing is Node's, reached through a loader of strings), and
 * nothing reachable from them may be an object of the runner's realm.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, tempDir } from '../fixtures/paths';

interface CandidateProcess {
  call(...args: unknown[]): Promise<{ output: unknown; error: string | null }>;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const harness = require(path.join(REPO, 'harness', 'js', 'peagen-harness.js')) as { Candidate: { start(file: string, options?: Record<string, unknown>): Promise<CandidateProcess> } };

/*
 * Run both here, with Node's URL, and in the candidate's realm (its source is the program): the
 * answers must be equal. Self-contained: it names nothing but its arguments and globals.
 */
function urlAnswers(inputs: Array<[string, string?]>, setters: Array<[string, string, string]>, queries: string[]): unknown {
  const fail = (e: unknown): unknown => {
    const err = e as { name: string; message: string; code?: string; input?: string; base?: string };
    return { threw: [e instanceof TypeError, err.name, err.message, err.code, err.input, err.base] };
  };
  const fields = (u: URL): unknown => ({
    href: u.href, origin: u.origin, protocol: u.protocol, username: u.username, password: u.password, host: u.host,
    hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search, hash: u.hash, params: [...u.searchParams],
    text: [String(u), `${u}`, u.toString(), u.toJSON(), JSON.stringify({ u })],
  });
  const parsed = inputs.map(([input, base]) => {
    try {
      return fields(base === undefined ? new URL(input) : new URL(input, base));
    } catch (e) {
      return fail(e);
    }
  });
  const checks = inputs.map(([input, base]) => [URL.canParse(input, base), URL.parse(input, base)?.href ?? null]);
  const set = setters.map(([href, component, value]) => {
    const u = new URL(href);
    const params = u.searchParams;
    try {
      (u as unknown as Record<string, string>)[component] = value;
    } catch (e) {
      return [fail(e), fields(u)];
    }
    return [fields(u), params === u.searchParams, [...params.keys()]];
  });
  const forms = queries.map((query) => {
    const p = new URLSearchParams(query);
    const out: unknown[] = [[...p], p.toString(), p.size, p.get('a'), p.getAll('a'), p.has('a'), p.has('a', '2'), p.get('missing')];
    p.sort();
    out.push(p.toString());
    p.delete('b');
    p.delete('a', '2');
    p.append('sp ace', 'x+y z&=%');
    p.append('\ud83d\ude00', '\ud800 lone');
    p.set('c', 'é');
    out.push(p.toString(), [...p.values()], [...p.entries()]);
    const seen: unknown[] = [];
    p.forEach((value, key, self) => seen.push([key, value, self === p]));
    out.push(seen);
    return out;
  });
  // Kept in step both ways.
  const u = new URL('https://example.com/path?b=2&a=1&a=3#top');
  const sp = u.searchParams;
  const steps: unknown[] = [u.search];
  sp.sort();
  steps.push(u.href);
  sp.append('q', 'a b+c');
  steps.push(u.search, u.href);
  sp.delete('a');
  steps.push(u.href);
  sp.delete('b');
  sp.delete('q');
  steps.push(u.href, u.search, sp.size);
  u.search = '?x=%20+&y';
  steps.push([...sp], sp.get('x'));
  u.href = 'http://other.test/?z=9';
  steps.push([...sp], sp === u.searchParams);
  const iterator = sp.keys();
  sp.append('w', '1');
  steps.push([...iterator]); // live: sees what was appended after it was made
  u.hash = '';
  u.search = '';
  steps.push(u.href, [...sp]);
  const made = [
    new URLSearchParams({ a: '1', b: 'x y', '\ud800': 'lone' }).toString(),
    new URLSearchParams([['a', '1'], ['a', '2']]).toString(),
    new URLSearchParams(new Map([['k', 'v']])).toString(),
    new URLSearchParams(new URLSearchParams('?r=1&s')).toString(),
    new URLSearchParams('?lead=1').toString(),
    new URLSearchParams().toString(),
    Object.prototype.toString.call(new URLSearchParams()),
    Object.prototype.toString.call(new URL('http://a')),
    Object.prototype.toString.call(new URLSearchParams().keys()),
  ];
  const errors: unknown[] = [];
  const attempts: Array<() => unknown> = [
    () => new URLSearchParams([['a']] as unknown as Array<[string, string]>),
    () => new URLSearchParams([1] as unknown as Array<[string, string]>),
    () => (new URLSearchParams() as unknown as { append(n: string): void }).append('a'),
    () => (new URLSearchParams() as unknown as { get(): void }).get(),
    () => new URLSearchParams().forEach(1 as unknown as () => void),
    () => (Reflect.construct(URL, []) as URL).href,
    () => new URL('/relative'),
    () => new URL('x', 'not a base'),
    () => {
      const v = new URL('http://a/');
      v.href = 'not a url';
    },
  ];
  for (const attempt of attempts) {
    try {
      errors.push(['returned', attempt()]);
    } catch (e) {
      errors.push(fail(e));
    }
  }
  return { parsed, checks, set, forms, steps, made, errors };
}

const INPUTS: Array<[string, string?]> = [
  ['https://ebаy.com'], // a Cyrillic а: the host is punycode
  ['HTTP://User:Pa ss@EXAMPLE.com:80/a/./b/../c/%7e?x=1&y=a+b%20c#frag ment'],
  ['https://a.com:443/'],
  ['http://a.com:8080'],
  ['ws://a:80/x'],
  ['ftp://a:21/..'],
  ['file:///C:/x/../y'],
  ['http://a/b/c/../../../../d'],
  ['../up/x?y#z', 'http://h/a/b/c'],
  ['//other/p', 'https://h/q'],
  ['?only', 'https://h/p?q#f'],
  ['#only', 'https://h/p?q#f'],
  ['http://[::1]:3000/'],
  ['http://0x7f.1/'],
  ['http://1.2.3.4.5/'],
  ['mailto:Someone@Example.com'],
  ['data:text/plain,hi there'],
  ['http://a/b c/ü?q=ü d#ü'],
  ['https://例え.テスト/パス'],
  ['http:\\\\back\\slash'],
  ['  http://trimmed/ \n'],
  ['http://a/\tb\nc'],
  ['blob:https://a.com/uuid'],
  ['sc://ñ.test/x'],
  ['HTTPS://EXAMPLE.COM./'],
  ['not a url'],
  [''],
  ['http://'],
  ['http://a:99999/'],
  ['/relative'],
];
const BASE = 'https://user:pw@example.com:8080/p/a/t/h?query=string&a=1#hash';
const SETTERS: Array<[string, string, string]> = [
  [BASE, 'protocol', 'http'],
  [BASE, 'protocol', 'ftp:'],
  [BASE, 'protocol', 'foo'], // special to non-special: refused, silently
  [BASE, 'port', '443'],
  [BASE, 'port', '8443abc'],
  [BASE, 'port', ''],
  ['https://example.com/', 'port', '443'],
  [BASE, 'hostname', 'EX.org'],
  [BASE, 'host', 'h.test:1'],
  [BASE, 'pathname', '/x/../y z'],
  [BASE, 'pathname', 'no-slash'],
  [BASE, 'search', '?a=1&b=2'],
  [BASE, 'search', 'a b&c=%41'],
  [BASE, 'search', ''],
  [BASE, 'hash', '#x y'],
  [BASE, 'hash', ''],
  [BASE, 'username', 'u s@'],
  [BASE, 'password', 'p@ss:'],
  [BASE, 'href', 'http://new.test/?n=1'],
  [BASE, 'href', 'not a url'],
  ['mailto:x@y', 'hostname', 'z'],
];
const QUERIES = [
  'a=1&b=2&a=2&a=3',
  '?x=a+b%20c%2B&y&=&==&a==b',
  '%zz%41=%C3%A9+%FC&a=%E2%82',
  'b=1&a=2&\ud83d\ude00=3&\ufffd=4&a=0&B=5',
  '&&&a&a=&a=2',
  'ß%FF=\ud834\udd1e%41&%ED%A0%80=%C0%80', // escapes that are not UTF-8: Node's fallback decoding
];

describe("the JavaScript candidate's realm: URL and URLSearchParams as Node gives them (real harness)", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('realm-url');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = async (source: string): Promise<CandidateProcess> => {
    const file = path.join(dir, 'candidate.js');
    fs.writeFileSync(file, source);
    return harness.Candidate.start(file, { entry: 'f' });
  };

  it('parses, resolves, sets and serializes as Node does (IDN, default ports, dot segments, bases, invalid URLs, form encoding, sort), in step with searchParams', async () => {
    const c = await start(`module.exports = { f: ${urlAnswers.toString()} };`);
    try {
      const r = await c.call(INPUTS, SETTERS, QUERIES);
      assert.equal(r.error, null);
      const expected = urlAnswers(INPUTS, SETTERS, QUERIES) as Record<string, unknown[]>;
      const got = r.output as Record<string, unknown[]>;
      for (const key of Object.keys(expected)) {
        const want = expected[key] ?? [];
        for (let i = 0; i < want.length; i += 1) assert.deepEqual(got[key]?.[i], want[i], `${key} #${i} ${JSON.stringify(key === 'parsed' || key === 'checks' ? INPUTS[i] : key === 'set' ? SETTERS[i] : key === 'forms' ? QUERIES[i] : '')}`);
      }
      assert.deepEqual(got, expected);
      // The cases say what they claim to.
      assert.equal((expected.parsed?.[0] as { hostname: string }).hostname, 'xn--eby-7cd.com');
      assert.equal((expected.parsed?.[2] as { href: string }).href, 'https://a.com/');
      assert.deepEqual((expected.parsed?.[25] as { threw: unknown[] }).threw, [true, 'TypeError', 'Invalid URL', 'ERR_INVALID_URL', 'not a url', undefined]);
    } finally {
      c.close();
    }
  });

  it('nothing reachable from URL, URLSearchParams, their instances, iterators and errors is of the runner realm; the parser is out of reach', async () => {
    const c = await start(`module.exports = { f: () => {
      const caught = (fn) => { try { fn(); } catch (e) { return e; } return null; };
      const url = new URL('http://a/?k=v');
      const params = url.searchParams;
      // Errors made while the stack is nearly used up: the runner's own overflow is not passed on.
      const deep = [];
      const down = () => { try { down(); } catch {} try { new URL('http://a/'); } catch (e) { deep[deep.length] = e; } };
      down();
      const roots = [URL, URLSearchParams, url, params, new URLSearchParams('a=1'), params.keys(), params.values(), params.entries(),
        params[Symbol.iterator](), params.keys().next(), params.entries().next(), params.getAll('k'), URL.parse('http://b/'), URL.parse,
        URL.canParse, caught(() => new URL('nope')), caught(() => new URL()), caught(() => new URLSearchParams([[1]])),
        caught(() => URLSearchParams.prototype.get.call({}, 'a')), caught(() => Object.getOwnPropertyDescriptor(URL.prototype, 'href').get.call({})),
        caught(() => params.keys().next.call({})), caught(() => params.forEach(1)), ...deep];
      const bare = [Object.prototype, Array.prototype[Symbol.unscopables]];
      const seen = new Set();
      const foreign = [];
      const visit = (value, where) => {
        if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
        seen.add(value);
        // Every chain ends at this realm's Object.prototype; the only objects without a prototype
        // are intrinsics (a record the runner made has none: it would show here).
        let root = value;
        while (Object.getPrototypeOf(root) !== null) root = Object.getPrototypeOf(root);
        if (root === value ? !bare.includes(value) : root !== Object.prototype) foreign.push(where);
        if (typeof value === 'function' && value !== Function.prototype && !(value instanceof Function)) foreign.push(where + ' (a function of another realm)');
        visit(Object.getPrototypeOf(value), where + '.__proto__');
        for (const key of Reflect.ownKeys(value)) {
          const own = Object.getOwnPropertyDescriptor(value, key);
          const name = where + '.' + String(key);
          visit(own.value, name);
          visit(own.get, name + '<get>');
          visit(own.set, name + '<set>');
        }
      };
      roots.forEach((root, i) => visit(root, 'root' + i));
      return {
        foreign,
        visited: seen.size,
        deepErrors: deep.length,
        deepKinds: [...new Set(deep.map((e) => e.constructor.name + ': ' + e.message))],
        facts: [
          Object.getPrototypeOf(Object.getPrototypeOf(url)) === Object.prototype,
          Object.getPrototypeOf(Object.getPrototypeOf(params)) === Object.prototype,
          URL.constructor === Function, URLSearchParams.constructor === Function, url.constructor === URL,
          url.href.constructor === String, caught(() => new URL('nope')).constructor === TypeError,
          Object.getPrototypeOf(params.keys()).__proto__ === Object.getPrototypeOf([].keys()).__proto__,
          params.keys().constructor === Object.getPrototypeOf([].keys()).__proto__.constructor,
        ],
        ownKeys: [Reflect.ownKeys(url).length, Reflect.ownKeys(params).length, Reflect.ownKeys(params.keys()).length, Object.keys(url).length],
        inherited: (() => { const names = []; for (const name in url) names.push(name); return names.join(','); })(),
      };
    } };`);
    try {
      const r = await c.call();
      assert.equal(r.error, null);
      const out = r.output as { foreign: string[]; visited: number; deepErrors: number; deepKinds: string[]; facts: boolean[]; ownKeys: number[]; inherited: string };
      assert.deepEqual(out.foreign, [], 'objects of another realm');
      assert.ok(out.visited > 150, `the walk reached their members and the realm's intrinsics (${out.visited} objects)`);
      assert.ok(out.deepErrors > 0, 'a URL made with the stack used up throws');
      for (const kind of out.deepKinds) assert.match(kind, /^RangeError: Maximum call stack size exceeded$/);
      assert.deepEqual(out.facts, out.facts.map(() => true));
      assert.deepEqual(out.ownKeys, [0, 0, 0, 0], 'no state of theirs is a property a program can read');
      const node: string[] = [];
      const nodeUrl = new URL('http://a/?k=v');
      for (const name in nodeUrl) node.push(name);
      assert.equal(out.inherited, node.join(','));
    } finally {
      c.close();
    }
  });
});
