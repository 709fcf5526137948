// One build for everything: three bundles in dist/ (what ships), and a per-file
// transpile of the sources and tests into out/ (what mocha runs). Type checking is
// `npm run typecheck`; esbuild only strips types.
import * as esbuild from 'esbuild';
import { chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJsonSchemas } from './jsonSchemas.mjs';

const production = process.argv.includes('--production');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  define: { PEAGEN_VERSION: JSON.stringify(version) },
  // Optional native modules of ssh2 (pulled in by dockerode): never needed, never bundleable.
  external: ['cpu-features', '*.node'],
  // The Redis queue's Lua scripts (daemon/fabric/queue/redis/lua) are imported as text.
  loader: { '.lua': 'text' },
};

function sources(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

// Text files imported by sources: in out/ each becomes `<file>.js` (module.exports = its
// text), which Node finds when the transpiled code requires `<file>`.
function textModules(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.lua'))
    .map((entry) => join(entry.parentPath, entry.name))
    .map((file) => ({ in: file, out: file }));
}

rmSync('out', { recursive: true, force: true });
await Promise.all([
  esbuild.build({ ...common, entryPoints: ['extension/extension.ts'], outfile: 'dist/extension.js', external: [...common.external, 'vscode'] }),
  esbuild.build({ ...common, entryPoints: ['daemon/main.ts'], outfile: 'dist/daemon.js' }),
  esbuild.build({ ...common, entryPoints: ['daemon/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  // `peagen/conformance` for plugin authors (docs/plugins.md); mocha is theirs, not bundled.
  esbuild.build({ ...common, entryPoints: ['test/conformance/index.ts'], outfile: 'dist/conformance.js', external: [...common.external, 'mocha'] }),
  esbuild.build({
    entryPoints: [...['shared', 'daemon', 'extension', 'test'].flatMap(sources), ...textModules('daemon')],
    outdir: 'out',
    outbase: '.',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    loader: { '.lua': 'text' },
    sourcemap: 'inline',
    logLevel: 'warning',
  }),
]);
chmodSync('dist/cli.js', 0o755);
// jsonValidation (package.json) points VS Code at these; generated from the transpiled zod schemas.
writeJsonSchemas(resolve('out'), resolve('dist', 'schemas'));
