/**
 * The console and text codecs the JavaScript candidate's realm gets (harness/js/peagen-realm-globals.js):
 * made in a realm of their own, they must answer as Node's do, or a program that decodes bytes
 * or logs would be judged on Peagen's differences instead of its own.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { format } from 'node:util';
import * as vm from 'node:vm';
import { REPO } from '../fixtures/paths';

interface Made {
  console: Record<'log' | 'info' | 'warn' | 'error', (...args: unknown[]) => void>;
  TextDecoder: new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }) => { decode(input?: Uint8Array): string; encoding: string };
  TextEncoder: new () => { encode(input?: string): Uint8Array };
  takePrinted(): Array<[string, string]>;
  URL: typeof URL;
  URLSearchParams: typeof URLSearchParams;
  setUrlLoader(loader: (op: string, a: string, b?: string, c?: string) => Record<string, unknown>): void;
}

function inRealm(): { made: Made; context: vm.Context } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { realmGlobals } = require(path.join(REPO, 'harness', 'js', 'peagen-realm-globals.js')) as { realmGlobals: () => unknown };
  const context = vm.createContext(Object.create(null));
  const put = '(target, key, value) => Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })';
  const made = new vm.Script(`(${realmGlobals.toString()})(${put}, Object.freeze)`).runInContext(context) as Made;
  return { made, context };
}

/** A small seeded generator: the same bytes on every run. */
function bytes(seed: number, length: number): Uint8Array {
  let state = seed;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    // Mostly the bytes UTF-8 sequences are made of, so that valid and broken ones both occur.
    const pick = state % 8;
    out[i] = pick < 3 ? state % 0x80 : pick < 5 ? 0x80 + (state % 0x40) : pick < 7 ? 0xc0 + (state % 0x38) : state % 256;
  }
  return out;
}

describe("the JavaScript candidate's realm: console and text codecs as Node gives them", () => {
  const { made, context } = inRealm();
  const realmBytes = (from: Uint8Array): Uint8Array => new vm.Script(`new Uint8Array(${JSON.stringify([...from])})`).runInContext(context) as Uint8Array;

  it('decodes UTF-8 as Node does, broken sequences replaced or refused with fatal', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const input = bytes(seed, 1 + (seed % 40));
      assert.equal(new made.TextDecoder('utf-8').decode(realmBytes(input)), new TextDecoder('utf-8').decode(input), `bytes ${[...input].join(',')}`);
      let nodeFatal: string | undefined;
      try {
        nodeFatal = new TextDecoder('utf-8', { fatal: true }).decode(input);
      } catch {
        nodeFatal = undefined;
      }
      let ours: string | undefined;
      try {
        ours = new made.TextDecoder('utf-8', { fatal: true }).decode(realmBytes(input));
      } catch {
        ours = undefined;
      }
      assert.equal(ours, nodeFatal, `fatal, bytes ${[...input].join(',')}`);
    }
  });

  it('decodes latin1 (windows-1252) and UTF-16LE, strips a BOM unless told, and encodes UTF-8 as Node does', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    assert.equal(new made.TextDecoder('latin1').decode(realmBytes(all)), new TextDecoder('latin1').decode(all));
    assert.equal(new made.TextDecoder('latin1').encoding, 'windows-1252');
    assert.equal(new made.TextDecoder('utf-16le').decode(realmBytes(all)), new TextDecoder('utf-16le').decode(all));
    for (let seed = 1; seed <= 100; seed += 1) {
      const input = bytes(seed, 1 + (seed % 21)).map((b, i) => (i % 2 === 1 && seed % 3 === 0 ? 0xd8 + (b % 8) : b)); // surrogates, paired or not
      assert.equal(new made.TextDecoder('utf-16le').decode(realmBytes(input)), new TextDecoder('utf-16le').decode(input), `bytes ${[...input].join(',')}`);
    }
    const bom = Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]);
    assert.equal(new made.TextDecoder().decode(realmBytes(bom)), 'a');
    assert.equal(new made.TextDecoder('utf-8', { ignoreBOM: true }).decode(realmBytes(bom)), '\ufeffa');
    assert.throws(() => new made.TextDecoder('klingon'), { name: 'RangeError', message: 'The "klingon" encoding is not supported' });
    for (const text of ['', 'abc', 'né', '€ 5', '𝄞 clef', 'lone \ud800 surrogate', 'end \udc00']) {
      assert.deepEqual([...new made.TextEncoder().encode(text)], [...new TextEncoder().encode(text)], text);
    }
  });

  it('logs what util.format would print, under the method called, and hands each line over once', () => {
    made.takePrinted();
    made.console.log('label %s:', 'x', { chars: 2 });
    made.console.warn('n=%d', 42, [1, 'two', [3]]);
    made.console.error(new vm.Script('new Map([[1, "a"]])').runInContext(context));
    made.console.info('100%', 'sure');
    const taken = (): unknown => JSON.parse(JSON.stringify(made.takePrinted())); // the realm's arrays, as plain data
    assert.deepEqual(taken(), [
      ['log', format('label %s:', 'x', { chars: 2 })],
      ['warn', format('n=%d', 42, [1, 'two', [3]])],
      ['error', format(new Map([[1, 'a']]))],
      ['info', format('100%', 'sure')],
    ]);
    assert.deepEqual(taken(), []);
  });

  it('logs a URL and its URLSearchParams as Node shows them, and %s is the href', () => {
    // The runner's loader in short (the real one is harness/js/peagen-harness-child.js's urlLoader).
    made.setUrlLoader((op, a, b, c) => {
      const url = new URL(a, op === 'parse' ? b : undefined);
      if (op === 'set') (url as unknown as Record<string, string | undefined>)[b ?? ''] = c;
      const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
      return { ok: true, href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
    });
    made.takePrinted();
    const ours = new made.URL('https://user@example.com:8080/p?b=2&a=1#h');
    const node = new URL('https://user@example.com:8080/p?b=2&a=1#h');
    made.console.log(ours);
    made.console.log(ours.searchParams, new made.URLSearchParams());
    made.console.log('%s and %s', ours, ours.searchParams);
    assert.deepEqual(JSON.parse(JSON.stringify(made.takePrinted())), [
      ['log', format(node)],
      ['log', format(node.searchParams, new URLSearchParams())],
      ['log', format('%s and %s', node, node.searchParams)],
    ]);
  });
});
