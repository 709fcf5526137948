/**
 * Which libraries an example needs: a `requirements.txt` (pip, into a venv) or a
 * `package.json` with dependencies (npm, into a node_modules) beside its
 * `peagen.example.json`. An environment is keyed by the sha256 of the file (and of the npm
 * lock file beside it): a changed file is a new environment, an unchanged one is reused.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EnvironmentError } from './environmentError';

export type EnvironmentKind = 'python' | 'node';

export interface EnvironmentSpec {
  kind: EnvironmentKind;
  exampleDir: string;
  /** The file it is installed from, relative to the example directory. */
  file: string;
  sha256: string;
}

export const PYTHON_REQUIREMENTS_FILE = 'requirements.txt';
export const NODE_MANIFEST_FILE = 'package.json';
const NODE_LOCK_FILE = 'package-lock.json';

/** The environments `exampleDir` asks for (none, one, or a Python and a Node one). */
export function environmentSpecsOf(exampleDir: string): EnvironmentSpec[] {
  const specs: EnvironmentSpec[] = [];
  const requirements = readIfPresent(path.join(exampleDir, PYTHON_REQUIREMENTS_FILE));
  if (requirements !== undefined) {
    specs.push({ kind: 'python', exampleDir, file: PYTHON_REQUIREMENTS_FILE, sha256: sha256Of([requirements]) });
  }
  const manifest = readIfPresent(path.join(exampleDir, NODE_MANIFEST_FILE));
  // A package.json without dependencies (e.g. only `"type": "module"`) needs no install.
  if (manifest !== undefined && Object.keys(nodeDependencies(manifest, exampleDir)).length > 0) {
    const lock = readIfPresent(path.join(exampleDir, NODE_LOCK_FILE));
    specs.push({ kind: 'node', exampleDir, file: NODE_MANIFEST_FILE, sha256: sha256Of(lock === undefined ? [manifest] : [manifest, lock]) });
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

function readIfPresent(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EnvironmentError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function sha256Of(parts: string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed, so that moving text from one file to the other changes the key.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}\n`).update(part);
  return hash.digest('hex');
}
