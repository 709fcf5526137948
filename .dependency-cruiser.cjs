/**
 * The import rules `npm test` enforces (dependency-cruiser): no cycles, the extension and
 * the daemon meet only in shared/, and the daemon's layers point one way. The layer order
 * is written once, in the "Layers" table of docs/architecture.md, and read from there.
 */
const fs = require('node:fs');
const path = require('node:path');

/** The "Layers" table: one { name, paths } per row, bottom layer first. */
function readLayers() {
  const doc = fs.readFileSync(path.join(__dirname, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split(/^## Layers$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('docs/architecture.md has no "## Layers" section');
  const layers = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const paths = [...(cells[2] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    if (cells[1] && paths.length > 0) layers.push({ name: cells[1], paths });
  }
  if (layers.length < 2) throw new Error('the "Layers" table of docs/architecture.md lists fewer than two layers');
  return layers;
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A folder path matches everything below it; a file path matches that file. */
const pattern = (paths) => `^(${paths.map((p) => escapeRegExp(p) + (p.endsWith('/') ? '' : '$')).join('|')})`;

const layers = readLayers();
const all = layers.flatMap((layer, index) => layer.paths.map((p) => ({ path: p, index })));
/**
 * The paths of a layer, and the longer paths inside them that belong to other layers: a
 * module belongs to the longest listed path that contains it.
 */
function membership(index) {
  const own = layers[index].paths;
  const carved = all.filter((other) => other.index !== index && own.some((p) => p.endsWith('/') && other.path.startsWith(p) && other.path !== p)).map((other) => other.path);
  return { path: pattern(own), ...(carved.length > 0 && { pathNot: pattern(carved) }) };
}

const layerRules = [];
for (let low = 0; low < layers.length; low++) {
  for (let high = low + 1; high < layers.length; high++) {
    layerRules.push({
      name: `layer-${layers[low].name}-not-to-${layers[high].name}`,
      comment: `${layers[low].name} is below ${layers[high].name} (docs/architecture.md, "Layers"): it may not import it`,
      severity: 'error',
      from: membership(low),
      to: membership(high),
    });
  }
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: modules that need each other are one concept, or one of them should emit instead',
      severity: 'error',
      from: { path: '^(daemon|extension|shared)/' },
      to: { circular: true },
    },
    {
      name: 'extension-only-through-shared',
      comment: 'the extension and the daemon meet only in shared/ (move what both need there, or add an RPC)',
      severity: 'error',
      from: { path: '^extension/' },
      to: { path: '^daemon/' },
    },
    {
      name: 'daemon-not-to-extension',
      severity: 'error',
      from: { path: '^daemon/' },
      to: { path: '^extension/' },
    },
    {
      name: 'shared-is-the-bottom',
      comment: 'shared/ is the contract both sides import; it imports neither',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(daemon|extension)/' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      from: { path: '^(daemon|extension|shared)/' },
      to: { path: '^test/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a layer that names a higher layer's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
