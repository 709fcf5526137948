'use strict';
/*
 * The project's own modules a program imports by relative path (`import { data } from
 * './problematic.js'`, `require('./lib/util')`), transitively, for the candidate's process,
 * which can read no file: they travel with the program in its load request, and the child
 * (peagen-harness-child.js) links them inside the candidate's realm.
 *
 * Which modules, and how each specifier resolves, is read from the trusted original's imports,
 * never from the candidate's: a candidate may import what the original imports (by the same
 * specifier), not the project's tests or their fixtures of expected answers.
 */
const fs = require('fs');
const path = require('path');

/** Bounds: a program importing more is not a small library function's neighbourhood. */
const MAX_MODULES = 200;
const MAX_TOTAL_CHARS = 8 * 1024 * 1024;

const RELATIVE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*|\brequire\s*\(\s*)(['"])(\.\.?\/[^'"]*|\.\.?)\1/gm;
const ESM_SYNTAX = /^\s*(?:import\s*[\w{*'"]|export\s)/m;

/** The files a specifier may name, in Node's order, and TypeScript's `.js` for `.ts`. */
function candidatesFor(resolved) {
  const typescript = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts' }[path.extname(resolved)];
  return [
    resolved,
    ...(typescript ? [resolved.slice(0, -path.extname(resolved).length) + typescript] : []),
    ...['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.json'].map((ext) => resolved + ext),
    ...['index.js', 'index.ts', 'index.json'].map((name) => path.join(resolved, name)),
  ];
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function kindOf(file, source) {
  if (/\.json$/i.test(file)) return 'json';
  if (/\.(mjs|mts)$/i.test(file)) return 'esm';
  if (/\.(cjs|cts)$/i.test(file)) return 'cjs';
  return ESM_SYNTAX.test(source) ? 'esm' : 'cjs';
}

/**
 * The modules the trusted original (its source, types stripped, is `referenceSource`) imports
 * by relative path, resolved from `programFile`, the program's place in the project. Keys are
 * paths relative to its folder ('/'-separated); `links` maps "<importing key>\0<specifier>"
 * to a key, the program itself (the candidate, when a module imports it back) being ''.
 * `strip(file, source)` turns TypeScript into JavaScript. Empty when the original imports none.
 * @returns {{modules: Record<string, {source: string, kind: string}>, links: Record<string, string>}}
 */
function projectModules(referenceSource, programFile, strip) {
  const baseDir = path.dirname(path.resolve(programFile));
  const modules = {};
  const links = {};
  let chars = 0;
  const queue = [{ key: '', source: referenceSource }];
  while (queue.length > 0) {
    const { key, source } = queue.shift();
    const from = path.join(baseDir, key === '' ? '.' : path.dirname(key));
    for (const match of source.matchAll(RELATIVE_SPECIFIER)) {
      const specifier = match[2];
      const file = candidatesFor(path.resolve(from, specifier)).find(isFile);
      if (!file || file.split(path.sep).includes('node_modules')) continue;
      const target = file === path.resolve(programFile) ? '' : path.relative(baseDir, file).split(path.sep).join('/');
      links[`${key}\0${specifier}`] = target;
      if (target in modules || target === '') continue;
      if (Object.keys(modules).length >= MAX_MODULES) throw new Error(`the program imports more than ${MAX_MODULES} of the project's modules`);
      const text = strip(file, fs.readFileSync(file, 'utf8'));
      chars += text.length;
      if (chars > MAX_TOTAL_CHARS) throw new Error("the project's modules the program imports are larger than 8 MB");
      modules[target] = { source: text, kind: kindOf(file, text) };
      if (modules[target].kind !== 'json') queue.push({ key: target, source: text });
    }
  }
  return { modules, links };
}

module.exports = { projectModules };
