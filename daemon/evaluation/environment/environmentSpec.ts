/**
 * Which libraries an example needs: a `requirements.txt` (pip, into a venv) or a
 * `package.json` with dependencies (npm, into a node_modules) beside its
 * `peagen.example.json`, each request checked to name a released package
 * (packageRequests.ts). The spec carries what was checked, and what is installed is exactly
 * that: the file is read once. Its sha256 (of the file, and of the npm lock file beside it)
 * is part of the environment's key: a changed file is a new environment, an unchanged one is
 * reused.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EnvironmentError } from './environmentError';
import { nodeRegistryDependencies, pythonRequirements } from './packageRequests';

export type EnvironmentKind = 'python' | 'node';

interface SpecBase {
  exampleDir: string;
  /** The file it is installed from, relative to the example directory. */
  file: string;
  sha256: string;
}

export type EnvironmentSpec =
  | (SpecBase & { kind: 'python'; /** Checked PEP 508 requirements, as pip receives them. */ requirements: string[] })
  | (SpecBase & { kind: 'node'; /** Checked name → registry version range, as npm receives them. */ dependencies: Record<string, string> });

/** Where a sandbox sees an environment of `kind`, the one it is installed in and the ones that use it. */
export function environmentSandboxPath(kind: EnvironmentKind): string {
  return `/peagen-env/${kind}`;
}

export const PYTHON_REQUIREMENTS_FILE = 'requirements.txt';
export const NODE_MANIFEST_FILE = 'package.json';
const NODE_LOCK_FILE = 'package-lock.json';

/** The environments `exampleDir` asks for (none, one, or a Python and a Node one). */
export function environmentSpecsOf(exampleDir: string): EnvironmentSpec[] {
  const specs: EnvironmentSpec[] = [];
  const requirements = readIfPresent(path.join(exampleDir, PYTHON_REQUIREMENTS_FILE));
  if (requirements !== undefined) {
    const file = path.join(exampleDir, PYTHON_REQUIREMENTS_FILE);
    specs.push({ kind: 'python', exampleDir, file: PYTHON_REQUIREMENTS_FILE, sha256: sha256Of([requirements]), requirements: pythonRequirements(requirements, file) });
  }
  const manifest = readIfPresent(path.join(exampleDir, NODE_MANIFEST_FILE));
  // A package.json without dependencies (e.g. only `"type": "module"`) needs no install.
  const dependencies = manifest === undefined ? {} : nodeDependencies(manifest, exampleDir);
  if (Object.keys(dependencies).length > 0) {
    // The lock file keys the environment but is not installed from: its "resolved" entries may name any tarball.
    const lock = readIfPresent(path.join(exampleDir, NODE_LOCK_FILE));
    specs.push({
      kind: 'node',
      exampleDir,
      file: NODE_MANIFEST_FILE,
      sha256: sha256Of(lock === undefined ? [manifest!] : [manifest!, lock]),
      dependencies: nodeRegistryDependencies(dependencies, path.join(exampleDir, NODE_MANIFEST_FILE)),
    });
  }
  return specs;
}

/** The `dependencies` of a package.json's text; errors say which file is wrong and how. */
export function nodeDependencies(manifest: string, exampleDir: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifest);
  } catch (error) {
    throw new EnvironmentError(`${path.join(exampleDir, NODE_MANIFEST_FILE)} is not valid JSON: ${(error as Error).message}`);
  }
  const dependencies = (parsed as { dependencies?: unknown } | null)?.dependencies;
  if (dependencies === undefined) return {};
  if (typeof dependencies !== 'object' || dependencies === null || Array.isArray(dependencies) || Object.values(dependencies).some((value) => typeof value !== 'string')) {
    throw new EnvironmentError(`${path.join(exampleDir, NODE_MANIFEST_FILE)}: "dependencies" must map package names to version strings`);
  }
  return dependencies as Record<string, string>;
}

/**
 * The file's text, or undefined when there is none. It must be a file of the example: a link
 * out of the example directory is refused, since refusals quote its lines (and accepted lines
 * go to the package index), which would show another file of this host to whoever wrote the example.
 */
function readIfPresent(file: string): string | undefined {
  try {
    const real = fs.realpathSync(file);
    const exampleDir = fs.realpathSync(path.dirname(file));
    if (path.dirname(real) !== exampleDir) {
      throw new EnvironmentError(`${file} links to ${real}, outside the example directory: make it a file of the example`);
    }
    return fs.readFileSync(real, 'utf8');
  } catch (error) {
    if (error instanceof EnvironmentError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EnvironmentError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export function sha256Of(parts: string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed, so that moving text from one file to the other changes the key.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}\n`).update(part);
  return hash.digest('hex');
}
