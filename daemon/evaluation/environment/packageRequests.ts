/**
 * What an example may ask to install: released packages of the package index or registry, by
 * name and version, and nothing else. A requirements.txt or package.json may come from a
 * client of a shared daemon; anything it could use to point an installer at code of its own
 * choosing (a local directory, an archive, a repository, a URL, an installer option such as
 * `-e`, `-f`, `--index-url`, `--no-binary`, a nested requirements file, a `file:` / `link:` /
 * git / tarball / `workspace:` dependency) is refused here, naming the line, before any
 * installer starts. Which index or registry is used is the operator's choice (the daemon's
 * installer settings), never the example's.
 *
 * The checked requests are what gets installed: pip receives the requirements as arguments
 * (it never reads the example's file, so none of its options or line continuations apply),
 * npm a package.json written from the checked dependencies alone.
 */
import { EnvironmentError } from './environmentError';

// PEP 508, without its URL form (`name @ url`): name, extras, version specifiers, marker.
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
const EXTRAS = `\\[\\s*(?:${NAME}(?:\\s*,\\s*${NAME})*)?\\s*\\]`;
const SPECIFIER = '(?:===|==|!=|~=|<=|>=|<|>)\\s*[A-Za-z0-9_.*+!-]+';
const SPECIFIERS = `${SPECIFIER}(?:\\s*,\\s*${SPECIFIER})*`;
// Marker expressions: variables, operators, quoted values; no path or URL characters.
const MARKER = `[A-Za-z0-9_.\\s'"<>=!~(),*+-]+`;
const PEP508 = new RegExp(`^${NAME}\\s*(?:${EXTRAS})?\\s*(?:\\(\\s*${SPECIFIERS}\\s*\\)|${SPECIFIERS})?\\s*(?:;\\s*${MARKER})?$`);

const PYTHON_RULE = 'only requirements of the form name[extras] version-specifiers ; marker are installed (e.g. "numpy==2.1.0", "scipy>=1.13 ; python_version >= \'3.10\'"), released wheels from the index Peagen is configured with';

/** The requirements of a requirements.txt's text, each checked; throws naming the first line that is not one. */
export function pythonRequirements(text: string, file: string): string[] {
  const requirements: string[] = [];
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const refuse = (why: string): never => {
      throw new EnvironmentError(`${file}:${index + 1}: "${raw.trim()}" ${why}. Peagen installs released packages by name and version only: ${PYTHON_RULE}`);
    };
    // A continuation joins the next line to this one: what that makes is not what either line says.
    if (/\\\s*$/.test(raw)) refuse('ends with a line continuation ("\\")');
    const line = raw.replace(/(^|\s)#.*$/, '').trim(); // pip's comment rule: # at the start or after blanks
    if (line === '') continue;
    if (line.startsWith('-')) refuse('is an installer option (options are not taken from an example)');
    // pip takes a name ending like an archive for a file to install ("pkg-1.0.tar.gz").
    if (/@|:\/\/|[/\\]|^\.|^file:/i.test(line) || /^[\w.-]+\.(whl|zip|tar|tgz|tbz|txz|tlz|tar\.(gz|bz2|xz|lz|lzma))\b/i.test(line)) refuse('names a location (a path, an archive, a repository or a URL) rather than a released package');
    if (!PEP508.test(line)) refuse('is not a requirement Peagen accepts');
    requirements.push(line);
  }
  return requirements;
}

// npm package names (scoped or not); the old ones may have capitals.
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
// Semver ranges and exact versions ("^1.2.3", ">=1 <2 || 3.x", "1.0.0 - 2.0.0") and dist-tags ("latest", "next").
const NPM_REGISTRY_SPEC = /^[\w.^~<>=|*+ -]+$/;

const NODE_RULE = 'only registry versions are installed: a version, a semver range or a dist-tag (e.g. "^4.17.21", "1.2.3", "latest"), from the registry Peagen is configured with';

/** A package.json's dependencies, each checked to name a registry version; throws naming the first that does not. */
export function nodeRegistryDependencies(dependencies: Record<string, string>, file: string): Record<string, string> {
  for (const [name, spec] of Object.entries(dependencies)) {
    const refuse = (why: string): never => {
      throw new EnvironmentError(`${file}: dependency "${name}": "${spec}" ${why}. Peagen installs registry packages only: ${NODE_RULE}`);
    };
    if (!NPM_NAME.test(name)) refuse('has a name that is not an npm package name');
    // npm reads these as locations: "file:", "link:", "git+…", "github:u/r", "u/r", URLs, "workspace:", "npm:" aliases, "./dir", "~/dir", "x.tgz".
    if (/[:/\\@#]/.test(spec) || /^\s*\./.test(spec) || /\.(tgz|tar|tar\.gz)\s*$/i.test(spec)) refuse('names a location (a file, a link, a repository, a URL, a tarball, a workspace or an alias) rather than a registry version');
    if (!NPM_REGISTRY_SPEC.test(spec)) refuse('is not a version, a semver range or a dist-tag');
  }
  return { ...dependencies };
}
