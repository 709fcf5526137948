"""A project's own tests, run against a candidate: the tests gate of generated evaluators and
the whole evaluator of `objective: tests` examples.

    run = run_project_tests("python3 -m unittest", project_dir, "pkg/stats.py", candidate_path)
    run.passed, run.total, run.failed  # e.g. 9, 10, ["FAIL: test_pairs (test_stats.Test.test_pairs)"]

The tests run in a copy of the project (`project_dir` is read-only in the sandbox), in their
own session, killed as a group when they end or time out. The candidate never runs in their
process: the file it evolves is replaced by a stand-in (peagen_harness.boundary for Python,
harness/js/peagen-standin.js for JavaScript) whose functions forward each call to the candidate
in a locked-down process of its own, so an assertion only ever sees plain data, and the
candidate's exit, exec, signals and printing cannot reach the tests. Outcomes are read from the
runner's own structured report (peagen_harness.test_report), never from what was printed:

  * the tests are the ones the ORIGINAL program's run reported: the total is theirs, and a test
    the candidate's run did not report (uncollected, crashed) counts as failed;
  * tests the original's run skipped are left out; a test it ran that the candidate's run skips
    or errors on counts as failed, and so does a failure under an id the original's run never
    reported (a tearDownClass, an `after` hook); tests marked as expected failures count neither
    way, whether they fail or pass (the gate of speed and score evaluators, which has no
    original's run, leaves every skipped test out);
  * every test runs: the runners' fail-fast options are switched off (test_report.EVERY_TEST_ENV);
  * a test command whose runner writes no report (not unittest, pytest or node --test) counts
    as one test, passed when it exits with status 0.

When the original's tests pass only with the program in their own process (its module has
classes the tests use, callbacks, state they read), the evaluation falls back to that mode and
says so in its metrics (`process_boundary: 0`) and on stderr: docs/trust.md says what a
candidate can do then.

As an evaluator (for a hand-written peagen.example.json):
    "evaluator": ["python3", "-m", "peagen_harness.project_tests", "--tests", "python3 -m unittest",
                  "--project", "project", "--program", "stats.py", "{program}"],
    "objective": {"name": "tests passed", "direction": "maximize"}
(no unit: a share of tests reads as a plain number, "tests passed 0.900", and compares by difference)
objective = passed / total, plus less than 0.01 / total for speed as the tie break (the test
run's CPU time against the original's); metrics tests_passed, tests_total, tests_cpu_ms.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from .boundary_names import evolved_names
from .test_report import EVERY_TEST_ENV, EVERY_TEST_RUNNERS
from .timing import EvaluatorError

SKIPPED_DIRS = ("__pycache__", ".peagen", "node_modules", ".git", ".venv", "venv")


@dataclass
class TestRun:
    passed: int
    total: int
    failed: List[str] = field(default_factory=list)
    output: str = ""
    cpu_seconds: float = 0.0
    status: Optional[int] = None
    #: The failing tests' ids as the runner reported them (the verdict's failed_tests), empty
    #: when the run reported none.
    failed_ids: List[str] = field(default_factory=list)
    #: Set by tests_gate() for the original only (the verdict's original_passed_tests): the
    #: tests it passes, behind the process boundary when the run passed, else in the tests'
    #: own process (failed_ids are then those it fails only behind the boundary).
    original_passed: Optional[List[str]] = None

    def summary(self) -> str:
        return "tests passed %d/%d" % (self.passed, self.total)

    def failure_text(self) -> str:
        """What a failing run says to a reader (and to a model): the failing tests by name."""
        named = "; ".join(self.failed[:5]) + (" (and %d more)" % (len(self.failed) - 5) if len(self.failed) > 5 else "")
        tail = self.output[-2000:]
        head = []
        if len(tail) < len(self.output):
            tail = tail.split("\n", 1)[-1]  # whole lines
            # What the tail lost and a reader needs: the scripts npm ran (`> pkg@1.0.0 build`: a
            # build step), and the first error (a stack trace's frames fill the tail).
            scripts = re.findall(r"^> \S+@\S* ([\w:.-]+)$", self.output, re.MULTILINE)
            if scripts:
                head.append("npm ran: %s" % ", ".join(dict.fromkeys(scripts)))
            error = re.search(r"^\s*\w*(?:Error|Exception): \S.*$", self.output, re.MULTILINE)
            if error and error.group(0) not in tail:
                head.append(error.group(0).strip()[:400])
        return "the project's tests failed (%s): %s\n%s" % (self.summary(), named or "see the output", "\n".join(head + [tail]))


#: Set by Peagen (daemon/evaluation/projectAccess.ts): the project's dependency folders
#: (node_modules, a virtualenv), read-only, each linked into the copy under its name; and the
#: bin folders of the interpreters the project's tests run with, first on their PATH.
DEPENDENCIES_ENV = "PEAGEN_PROJECT_DEPENDENCIES"
PATH_ENV = "PEAGEN_PROJECT_PATH"


def assemble(project_dir: str, program: str, candidate: str, into: str) -> str:
    """A writable copy of the project with the candidate in place of `program`; returns its
    path. Its file modes and symlinks are the project's; its dependency folders are links to
    the read-only ones Peagen mounted (never copied)."""
    copy = os.path.join(into, "project")
    shutil.copytree(project_dir, copy, ignore=shutil.ignore_patterns(*SKIPPED_DIRS), symlinks=True)
    for folder in [p for p in os.environ.get(DEPENDENCIES_ENV, "").split(os.pathsep) if p]:
        link = os.path.join(copy, os.path.basename(folder))
        if not os.path.lexists(link):
            link_dependencies(folder, link)
    target = os.path.join(copy, program)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(candidate, target)
    return copy


#: Where tools keep caches inside node_modules (vitest's .vite, vite's bundled config in
#: .vite-temp, babel's and ava's .cache): the copy's node_modules leaves them out, so that a tool
#: makes its own, writable, in the copy.
NODE_MODULES_CACHES = frozenset({".cache", ".vite", ".vite-temp", ".vitest"})


def link_dependencies(folder: str, link: str) -> None:
    """The project's dependency folder (read-only) at `link` in the copy: a link to it, except
    node_modules, which is a folder of links to its entries (packages, .bin, pnpm's .pnpm) without
    its caches. The same as daemon/usecases/projectEnvironment.ts linkDependencies, for init."""
    if os.path.basename(folder) != "node_modules":
        os.symlink(folder, link)
        return
    os.mkdir(link)
    for name in os.listdir(folder):
        if name not in NODE_MODULES_CACHES:
            os.symlink(os.path.join(folder, name), os.path.join(link, name))


JS_EXTENSIONS = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")
HARNESS_PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS_JS = os.path.join(os.path.dirname(HARNESS_PYTHON), "js")
REPORT_HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_hook")
NODE_REPORTER = os.path.join(HARNESS_JS, "peagen-test-report.mjs")
MOCHA_REPORTER = os.path.join(HARNESS_JS, "peagen-mocha-report.js")
CLI_REPORTERS = os.path.join(HARNESS_JS, "peagen-cli-reporters.js")
TAPE_REPORTER = os.path.join(HARNESS_JS, "peagen-tape-report.js")


def boundary_supported(program: str) -> bool:
    return program.endswith(".py") or program.endswith(JS_EXTENSIONS)


def python_package(project_dir: str, program: str) -> Tuple[Optional[str], str]:
    """The package `program` (a path inside the project) belongs to, by its __init__.py files
    ("pkg.sub" for pkg/sub/mod.py), and the folder that package is imported from."""
    parts = program.replace(os.sep, "/").split("/")[:-1]
    package: List[str] = []
    while parts and os.path.isfile(os.path.join(project_dir, *parts, "__init__.py")):
        package.insert(0, parts.pop())
    return (".".join(package) or None), os.path.join(project_dir, *parts)


def place_program(copy: str, program: str, candidate: str, reference: str, boundary: bool, timeout: float,
                  seed: Optional[int] = None, project_dir: Optional[str] = None,
                  evolved: Optional[List[str]] = None, tests_alone: bool = False) -> None:
    """Puts the program under test at `program` in the project's copy: a stand-in (the
    original module, its evolved functions forwarded to the candidate in its own process,
    boundary), or the candidate's file itself. The candidate's process resolves the original's
    relative imports in the original project (`project_dir`), never in the copy with the stand-in."""
    target = os.path.join(copy, program)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if not boundary:
        shutil.copyfile(candidate, target)
    elif program.endswith(".py"):
        from .boundary import write_standin
        package, root = python_package(project_dir or os.path.dirname(reference), program)
        write_standin(target, candidate, reference_path=reference, module_name=os.path.basename(program)[:-3],
                      call_timeout=timeout, seed=seed, evolved=evolved, package=package,
                      import_paths=[root] if package else [])
    else:
        _write_js_standin(target, candidate, reference, timeout, evolved, tests_alone)


def _js_imports(source: str) -> List[str]:
    """The packages and Node built-ins the reference requires or imports (the candidate's
    allow-list; a relative import cannot be served in the candidate's process)."""
    found = re.findall(r"""(?:require\(\s*|\bfrom\s+|^\s*import\s+)['"]([^'"./][^'"]*)['"]""", source, re.MULTILINE)
    return sorted(set(found))


# Not a dot file: the project's build may compile or bundle its sources by glob (tsc's
# `include`, tshy, babel's CLI), and those globs skip dot files, so a dotted original would be
# missing from the build the stand-in imports (brace-expansion: tshy's src/*.ts).
ORIGINAL_PREFIX = "peagen-original-"
# A dot file: the candidate's text is there for the project's type check only (reached through
# the stand-in's `import type`, which tsc follows whatever its globs), and no runner may pick it
# up by glob and run it in the tests' process (vitest's includeSource did: helper-29's B3).
CANDIDATE_PREFIX = ".peagen-candidate-"


def project_node_modules() -> Optional[str]:
    """The project's node_modules Peagen mounted (PEAGEN_PROJECT_DEPENDENCIES), or None."""
    for folder in os.environ.get(DEPENDENCIES_ENV, "").split(os.pathsep):
        if folder and os.path.basename(folder) == "node_modules" and os.path.isdir(folder):
            return folder
    return None


def _import_suffix(target: str) -> str:
    """How the project imports the TypeScript file `target` (inside the copy), so that the
    stand-in imports the original the same way and the project's toolchain resolves it: by its
    own name (`'../src/words.ts'`, as Node's type stripping needs), by the JavaScript name it
    compiles to (`'../src/words.js'`, TypeScript's NodeNext convention, which tsc, tsx, ts-node
    and tap map back to the .ts), or without an extension (bundlers, ts-jest, vitest). Read from
    the import specifiers of the project's TypeScript and JavaScript files that resolve to it;
    none found: .ts without an extension, .mts and .cts with theirs."""
    stem, extension = os.path.splitext(os.path.abspath(target))
    compiled = {".ts": ".js", ".mts": ".mjs", ".cts": ".cjs"}.get(extension, extension)
    specifier = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+|\brequire\(\s*)['"](\.[^'"]*)['"]""", re.MULTILINE)
    root = _project_root(target)
    seen = 0
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith(".")]
        for filename in filenames:
            if not re.search(r"\.(c|m)?[jt]sx?$", filename) or filename.startswith((ORIGINAL_PREFIX, CANDIDATE_PREFIX)):
                continue
            seen += 1
            if seen > 2000:
                break
            try:
                with open(os.path.join(dirpath, filename), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            for spec in specifier.findall(text):
                resolved = os.path.normpath(os.path.join(dirpath, spec))
                if resolved == stem + extension:
                    found.add(extension)
                elif resolved == stem + compiled:
                    found.add(compiled)
    if extension in found:
        return extension
    if compiled in found:
        return compiled
    if extension == ".ts" and _node_module_resolution(root, os.path.dirname(target)):
        return compiled  # NodeNext: a relative import names the file it compiles to
    return "" if extension == ".ts" else extension  # .mts/.cts: Node resolves no other way


def _project_root(target: str) -> str:
    """The project copy's folder (`.../project`) that holds `target`."""
    root = os.path.dirname(os.path.abspath(target))
    while os.path.basename(root) != "project" and os.path.dirname(root) != root:
        root = os.path.dirname(root)
    return root


# A module a static import may load before anything in the file runs: a package or built-in
# (bare), or a file of the project (relative).
_STATIC_SPECIFIER = re.compile(r"""((?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"])([^'"]*)(['"])""")
# What makes a tool run a file or turn text into imports, found in the raw text (Vitest runs
# every includeSource file whose text contains `import.meta.vitest`; Vite's `import.meta.glob`):
# spelled in the copy with a unicode escape, which names the same property, makes the same
# string and matches the same in a regular expression, so the type check sees no difference.
_TOOL_TRIGGERS = (("import.meta.vitest", "import.meta.vi\\u0074est"), ("import.meta.glob", "import.meta.gl\\u006fb"))


def _escapes(spec: str, folder: str, root: str) -> bool:
    """Whether an import of `spec` from `folder` may load what is not the project's: a `data:` or
    `file:` URL, an absolute path, a file outside the project or one of Peagen's files."""
    relative = spec.startswith(".")
    inside = os.path.normpath(os.path.join(folder, spec)) if relative else ""
    return bool((re.match(r"^[A-Za-z][\w+.-]*:", spec) and not spec.startswith("node:")) or spec.startswith("/") or "\\" in spec or (
        relative and (not inside.startswith(root + os.sep) or "peagen" in os.path.basename(inside).lower())) or (
        not relative and ".." in spec.split("/")))  # `pkg/../../../candidate.ts` leaves node_modules


def _types_only_copy(text: str, folder: str, root: str) -> str:
    """The candidate's text as it sits in the project for its type check only: if a tool does load
    it, it throws before its first statement runs (an immediately called arrow, which TypeScript's
    reachability analysis does not follow), and its static imports, which a module evaluates
    before its body, may only load packages, built-ins and the project's own files: one that may
    load anything else (_escapes) names a file that is not there instead, wherever it is written
    (a comment too: the text is not parsed), so the type check fails on a real one and ignores
    one in a comment (helper-33: emptying the copy for it let a comment switch the check off).
    No text is left that makes Vitest run it or Vite add imports to it (_TOOL_TRIGGERS)."""
    def neutral(found: "re.Match[str]") -> str:
        return found.group(1) + "./.peagen-refused-import" + found.group(3) if _escapes(found.group(2), folder, root) else found.group(0)
    body = re.sub(r"^#!.*", "", text, count=1)  # a `#!` line must be the first; it is not needed here
    body = _STATIC_SPECIFIER.sub(neutral, body)
    for trigger, spelled in _TOOL_TRIGGERS:
        body = body.replace(trigger, spelled)
    return ("/* eslint-disable */\n(() => { throw new Error('Peagen: this copy of a candidate is for the type check only'); })();\n"
            + body)


def _node_module_resolution(root: str, folder: str) -> bool:
    """Whether the project compiles TypeScript with Node's own module resolution (`"module":
    "nodenext"`/`"node16"` in a tsconfig from the file's folder up to the project's root, or
    tshy, which always does): then an extensionless import does not resolve in the output."""
    while True:
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if re.match(r"^tsconfig.*\.json$", name):
                try:
                    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                        if re.search(r'"module(?:Resolution)?"\s*:\s*"node(?:16|next)"', fh.read(), re.IGNORECASE):
                            return True
                except OSError:
                    pass
        if os.path.abspath(folder) == os.path.abspath(root) or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    try:
        with open(os.path.join(root, "package.json"), encoding="utf-8", errors="replace") as fh:
            return re.search(r'"tshy"\s*:', fh.read()) is not None
    except OSError:
        return False


def _write_js_standin(target: str, candidate: str, reference: str, timeout: float,
                      evolved: Optional[List[str]] = None, tests_alone: bool = False) -> None:
    """The JavaScript stand-in: the trusted original, beside it in the copy (so that its own
    relative requires resolve there), loaded by the judge with its evolved exports forwarded."""
    with open(reference, encoding="utf-8") as fh:
        source = fh.read()
    if evolved is None:  # the reference's markers, never the candidate's (see boundary.write_standin)
        evolved = evolved_names(source, javascript=True)
    config = {"candidate": os.path.abspath(candidate), "allow": _js_imports(source), "evolved": evolved,
              "callTimeoutMs": int(timeout * 1000), "loadTimeoutMs": 30_000,
              # With the tests alone as the judge, an evolved helper must be exported (peagen-standin.js).
              "evolvedMustBeExported": tests_alone}
    packages = project_node_modules()
    if packages:  # the packages the original requires come from the project's own node_modules
        config["packages"] = packages
    harness = os.path.join(HARNESS_JS, "peagen-standin.js")
    original = os.path.join(os.path.dirname(target), ORIGINAL_PREFIX + os.path.basename(target))
    shutil.copyfile(reference, original)
    # The relative imports of the original resolve from the program's place in the project.
    config.update({"original": os.path.abspath(original), "program": os.path.abspath(target)})
    relative = "./" + os.path.basename(original)
    typescript = re.search(r"\.(c|m)?ts$", target) is not None
    # As the project imports the file, so that its toolchain resolves the original (and the
    # candidate's copy below) as it resolves the file. Read once: it walks the project's files.
    suffix = _import_suffix(target) if typescript else ""
    if typescript:
        relative = os.path.splitext(relative)[0] + suffix
    esm = target.endswith(".mjs") or (not target.endswith(".cjs") and re.search(r"^\s*(?:export|import)\s", source, re.MULTILINE) is not None)
    # Peagen's file, not the project's: its linter and type check (`checkJs`) need not accept it.
    head = ("// @ts-nocheck\n/* eslint-disable */\n// Written by Peagen: a stand-in for the program under evaluation; its evolved functions "
            "run in a process of their own.\n")
    if typescript:
        # Whatever the toolchain (tsc, ts-jest, vitest, Node's own type stripping) makes of it:
        # no import.meta (CommonJS output), no require (ES output), types unchecked.
        names = _static_exports(source)
        named = [n for n in names if n != "default"]
        # `as typeof original`: the exports keep the original's types for the project's type
        # check (yargs-parser's `tsc` of its other files, which call the evolved function).
        # The candidate's text beside them, imported for its types only (erased when run): a type
        # check in the test command (`tsc -p . && ...`) checks it too, as the user's build will once
        # it is applied; the stand-in's own @ts-nocheck covers this file alone (helper-27's B1).
        checked = os.path.join(os.path.dirname(target), CANDIDATE_PREFIX + os.path.basename(target))
        with open(candidate, encoding="utf-8", errors="replace") as fh:
            candidate_text = fh.read()
        with open(checked, "w", encoding="utf-8") as fh:
            fh.write(_types_only_copy(candidate_text, os.path.dirname(target), _project_root(target)))
        checked_relative = os.path.splitext("./" + os.path.basename(checked))[0] + suffix
        text = "%simport * as original from %s;\nimport type * as candidateTypes from %s;\n" % (
            head, json.dumps(relative), json.dumps(checked_relative))
        # The evolved functions with the candidate's types, the rest with the original's: the
        # project's callers are checked against the signatures the user's build will see once the
        # candidate is applied (a new required parameter fails there too: helper-29's B2).
        exported = [n for n in evolved if n in names]
        typed = "typeof original" if not exported else "Omit<typeof original, %s> & Pick<typeof candidateTypes, %s>" % (
            (" | ".join(json.dumps(n) for n in exported),) * 2)
        text += "const api = process.getBuiltinModule('module').createRequire(%s)(%s).standinOf(original, %s) as %s;\n" % (
            json.dumps(harness), json.dumps(harness), json.dumps(config), typed)
        if named:
            text += "export const { %s } = api;\n" % ", ".join(named)
        if "default" in names:
            text += "export default api.default;\n"
        types = [n for n in _static_type_exports(source) if n not in names]
        if types:  # the original's exported types, which the project's files import beside its functions
            text += "export type { %s } from %s;\n" % (", ".join(types), json.dumps(relative))
    elif not esm:
        text = "%s'use strict';\nmodule.exports = require(%s).standinOf(require(%s), %s);\n" % (
            head, json.dumps(harness), json.dumps(relative), json.dumps(config))
    else:
        # An ES module's exports are static: their names are read from the original (trusted), loaded here.
        listed = subprocess.run(["node", "--input-type=module", "-e",
                                 "const m = await import(%s); process.stdout.write(JSON.stringify(Object.keys(m)))"
                                 % json.dumps("file://" + os.path.abspath(original))],
                                capture_output=True, text=True, timeout=60, cwd=os.path.dirname(original))
        try:
            names = [n for n in json.loads(listed.stdout) if re.match(r"^[A-Za-z_$][\w$]*$", n)]
        except ValueError:
            raise EvaluatorError("cannot list the exports of the original program: %s" % listed.stderr[-500:]) from None
        named = [n for n in names if n != "default"]
        text = "%simport * as original from %s;\nimport { createRequire } from 'node:module';\n" % (head, json.dumps(relative))
        text += "const api = createRequire(import.meta.url)(%s).standinOf(original, %s);\n" % (json.dumps(harness), json.dumps(config))
        if named:
            text += "export const { %s } = api;\n" % ", ".join(named)
        if "default" in names:
            text += "export default api.default;\n"
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(text)


def _static_type_exports(source: str) -> List[str]:
    """The types a TypeScript module exports, read from its text: `export interface X`,
    `export type X =`, `export { type X }` (the stand-in re-exports them from the original)."""
    names = re.findall(r"^export\s+(?:declare\s+)?(?:interface|type)\s+([A-Za-z_$][\w$]*)", source, re.MULTILINE)
    for listed in re.findall(r"^export\s*\{([^}]*)\}", source, re.MULTILINE):
        for item in listed.split(","):
            words = item.split()
            if len(words) >= 2 and words[0] == "type":
                names.append(words[-1])
    for listed in re.findall(r"^export\s+type\s*\{([^}]*)\}", source, re.MULTILINE):
        names.extend(item.split()[-1] for item in listed.split(",") if item.split())
    return [n for i, n in enumerate(names) if n not in names[:i] and re.match(r"^[A-Za-z_$][\w$]*$", n)]


def _static_exports(source: str) -> List[str]:
    """The names a TypeScript or ES module exports, read from its text (it is the trusted
    original; loading it would need the project's toolchain): declarations, export lists, default."""
    names: List[str] = []
    for match in re.finditer(r"^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?|class|const|let|var|enum)\s+([A-Za-z_$][\w$]*)",
                             source, re.MULTILINE):
        if not re.match(r"^export\s+default\b", match.group(0)):
            names.append(match.group(1))
    for listed in re.findall(r"^export\s*\{([^}]*)\}", source, re.MULTILINE):
        for item in listed.split(","):
            words = item.split()
            if words and words[0] != "type":
                names.append(words[-1])
    if re.search(r"^export\s+default\b", source, re.MULTILINE):
        names.append("default")
    return [n for i, n in enumerate(names) if n not in names[:i] and re.match(r"^[A-Za-z_$][\w$]*$", n)]


_REPORTER = re.compile(r"--test-reporter(?![-\w])")
#: `npm test`, `npm t`, `npm run X`, `yarn X`, `pnpm run X`: the script's name ("t" for npm's test).
_SCRIPT_RUN = re.compile(r"\b(?:npm\s+(?:run(?:-script)?\s+([\w:.-]+)|(t)(?:est)?\b)|(?:yarn|pnpm)(?:\s+run)?\s+([\w:.-]+))")
_DESTINATION = re.compile(r"--test-reporter-destination(?![-\w])")


def own_node_reporters(command: str, cwd: str) -> Optional[int]:
    """How many of the node --test reporters the command (or a package script it runs, read from
    cwd's package.json) names have no destination: None when it names none. One node process
    per part of a script (`&&`, `;`, `|`), so the most any part names."""
    try:
        with open(os.path.join(cwd, "package.json"), encoding="utf-8") as fh:
            scripts = json.load(fh).get("scripts")
    except (OSError, ValueError, AttributeError):
        scripts = None
    scripts = scripts if isinstance(scripts, dict) else {}
    texts, queue = [], [command]
    while queue and len(texts) < 20:  # the scripts it runs, and theirs (`npm run build && npm run unit`)
        text = queue.pop()
        texts.append(text)
        for match in _SCRIPT_RUN.finditer(text):
            name = next(group for group in match.groups() if group)
            script = scripts.get("test" if name == "t" else name)
            if isinstance(script, str) and script not in texts:
                queue.append(script)
    parts = [part for text in texts for part in re.split(r"&&|\|\||[;|]", text)]
    named = [(len(_REPORTER.findall(part)), len(_DESTINATION.findall(part))) for part in parts]
    if not any(reporters for reporters, _ in named):
        return None
    return max(max(reporters - destinations, 0) for reporters, destinations in named)


def report_env(command: str, report_dir: str, source_root: Optional[str] = None, cwd: str = ".") -> dict:
    """The environment the tests run in: the runners' structured reports switched on (a folder of
    their own), nothing of Peagen's capture. `source_root` goes first on PYTHONPATH after ours:
    a project installed in its virtualenv in editable mode (`pip install -e .`) would otherwise
    import the user's own files, never the copy with the program under evaluation in it."""
    env = dict(os.environ)
    env.pop("PEAGEN_CAPTURE_FILE", None)
    env[EVERY_TEST_ENV] = "1"  # the runners' fail-fast options off: each test has an outcome of its own
    # The same test ids on every run: a table of subtests drawn from a set, or a parametrize
    # over one, is named in the set's order, which Python's string hashing makes differ per process.
    env.setdefault("PYTHONHASHSEED", "0")
    tools = [p for p in env.get(PATH_ENV, "").split(os.pathsep) if p]
    if tools:  # the interpreters the user's own command found (a pyenv Python with its pytest)
        env["PATH"] = os.pathsep.join(tools + [env.get("PATH", "")])
    env["PEAGEN_TEST_REPORT_DIR"] = report_dir
    env["PYTHONPATH"] = os.pathsep.join([REPORT_HOOK, HARNESS_PYTHON] + ([source_root] if source_root else [])
                                        + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTEST_PLUGINS"] = ",".join([p for p in env.get("PYTEST_PLUGINS", "").split(",") if p] + ["peagen_harness.pytest_report"])
    # Inert unless the process runs mocha or tape, or is jest's or vitest's command line.
    options = ["--require=%s" % hook for hook in (MOCHA_REPORTER, TAPE_REPORTER, CLI_REPORTERS)]
    # A reporter of ours beside the one the user sees. Node pairs reporters with destinations in
    # order, NODE_OPTIONS' first, and refuses a run whose counts differ: the command's own
    # reporters without a destination get stdout here, as Node gives a lone one.
    own = own_node_reporters(command, cwd)
    ours = "--test-reporter=%s --test-reporter-destination=%s" % (NODE_REPORTER, os.path.join(report_dir, "node.jsonl"))
    if own is None:
        options.append("--test-reporter=spec --test-reporter-destination=stdout " + ours)
    else:
        options.append(" ".join([ours] + ["--test-reporter-destination=stdout"] * own))
    env["NODE_OPTIONS"] = (env.get("NODE_OPTIONS", "") + " " + " ".join(options)).strip()
    # Coverage means nothing here: the evolved functions run in the candidate's process, so
    # the file the tests load is mostly unexercised. tap (18+) fails a run under 100% unless told.
    env["PEAGEN_COVERAGE_OFF"] = "1"  # jest and vitest: peagen-cli-reporters.js
    env["TAP_DISABLE_COVERAGE"] = "1"
    env["TAP_ALLOW_INCOMPLETE_COVERAGE"] = "1"
    return env


#: Outcomes that count neither way when no original's run says which tests to expect; the
#: expected-failure markers' two, whatever the original did (test_report.OUTCOMES).
UNJUDGED = ("skipped", "xfailed", "xpassed")


@dataclass
class Outcomes:
    """One run of the tests: each test's outcome as its runner reported it (empty when no
    runner wrote a report), and how the command ended."""
    tests: dict
    status: Optional[int]
    timed_out: bool
    output: str
    cpu_seconds: float


#: `PYTHONPATH=src python3 -m pytest`: an assignment of the user's own, which would drop the
#: folders the structured reports need (peagen_harness, the report hook).
_PYTHONPATH_ASSIGNMENT = re.compile(r"""(^|[\s;&|(])PYTHONPATH=((?:"[^"]*"|'[^']*'|[^\s;&|()"'])*)""")


def keeps_our_pythonpath(command: str) -> str:
    """`command` with each PYTHONPATH it assigns extended by the one it runs in (ours first
    in it), so that the reports are still written: `PYTHONPATH=src:"$PYTHONPATH" ...`."""
    return _PYTHONPATH_ASSIGNMENT.sub(lambda m: '%sPYTHONPATH=%s:"$PYTHONPATH"' % (m.group(1), m.group(2))
                                      if "$PYTHONPATH" not in m.group(2) and "${PYTHONPATH" not in m.group(2) else m.group(0),
                                      command)


class _BoundedOutput:
    """What a test run prints, read as it comes (a thread), kept to its first and last
    OUTPUT_KEPT bytes: the tests (and what the functions they call print, sent back from the
    candidate's process) may print without end, and the evaluator's memory is not theirs."""

    OUTPUT_KEPT = 256 * 1024

    def __init__(self, stream):
        import threading
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream) -> None:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                return
            room = self.OUTPUT_KEPT - len(self.head)
            self.head += chunk[:max(room, 0)]
            self.tail += chunk[max(room, 0):]
            if len(self.tail) > self.OUTPUT_KEPT:
                self.dropped += len(self.tail) - self.OUTPUT_KEPT
                del self.tail[:-self.OUTPUT_KEPT]

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)

    def text(self) -> bytes:
        gap = b"\n[... %d bytes of output left out ...]\n" % self.dropped if self.dropped else b""
        return bytes(self.head) + gap + bytes(self.tail)


def _same_on_every_run(tests: dict, cwd: str) -> dict:
    """The outcomes with the copy's own path in a test's id written as <project>: each run has a
    copy in a new folder, and a test named after a path (pathe's `relative('/tmp/...')`, a file's
    own failure) is the same test on every run. Two ids that become one keep the worse outcome."""
    from .test_report import OUTCOMES
    roots = sorted({os.path.abspath(cwd), os.path.realpath(cwd)}, key=len, reverse=True)
    same: dict = {}
    for test, outcome in tests.items():
        for root in roots:
            test = test.replace(root, "<project>")
        before = same.get(test)
        if before is None or OUTCOMES.index(outcome) > OUTCOMES.index(before):
            same[test] = outcome
    return same


def run_tests(command: str, cwd: str, report_dir: str, timeout: float = 300, source_root: Optional[str] = None) -> Outcomes:
    """Runs the shell command in cwd, in its own session (whatever it starts dies with it). `sh`
    is found on PATH: the sandbox image has it in /usr/bin (busybox), not necessarily /bin.
    `source_root`: the copy's folder a Python program's package is imported from, put before
    the project's own paths (see report_env)."""
    from .test_report import read_reports
    os.makedirs(report_dir, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(["sh", "-c", keeps_our_pythonpath(command)], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, env=report_env(command, report_dir, source_root, cwd))
    timed_out = False
    output = _BoundedOutput(proc.stdout)
    try:
        proc.wait(timeout=timeout)
        output.join(5)  # what a process it left behind still writes waits no longer than this
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    output.join(5)
    out = b"" if timed_out else output.text()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Outcomes(_same_on_every_run(read_reports(report_dir), cwd), None if timed_out else proc.returncode, timed_out,
                    out.decode("utf-8", "replace"),
                    (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime))


def count(run: Outcomes, expected: Optional[List[str]] = None, timeout: float = 300,
          left_out: Sequence[str] = ()) -> TestRun:
    """passed / total of a run. `expected`: the tests the original's run reported and did not
    skip, which are the total (a test missing from this run failed); None: the tests this run
    reported and did not skip. `left_out`: tests counted neither way (init's
    TESTS_FILE: they fail on the original itself behind the process boundary). A run
    with no report (and none expected) is one test, passed when the command exited with 0."""
    if run.timed_out:
        return TestRun(0, len(expected) if expected else 1, ["the tests did not finish in %d s" % timeout], run.output,
                       run.cpu_seconds)
    # Without an original's run to go by (the gate of speed and score evaluators, whose answers
    # are compared with the original's anyway), a skipped test is neither passed nor failed:
    # `@unittest.skip("FIXME")` skips it for the original too.
    # A test marked as an expected failure is left out the same way (test_report.OUTCOMES).
    ids = [test for test, outcome in run.tests.items() if outcome not in UNJUDGED] if expected is None else expected
    if left_out and ids:
        excused = set(left_out)
        # Every test left out: nothing is left to judge by, which is not a pass.
        ids = [test for test in ids if test not in excused] or ["peagen:every test was left out"]
    if not ids:
        passed = 1 if run.status == 0 else 0
        return TestRun(passed, 1, [] if passed else ["the test command (exit status %s)" % run.status], run.output,
                       run.cpu_seconds, run.status)
    failing = [test for test in ids if run.tests.get(test) != "passed"]
    total = len(ids)
    if expected is not None:
        # A failure the original's run never reported (a tearDownClass, an `after` hook, a
        # collection error) fails the run too: it is not a test of the total, but the tests said
        # no. It takes a pass away rather than adding to the total: counted as one more test,
        # a candidate that fixes a failing test and breaks a module's cleanup would score
        # (n)/(n+1), above the original's (n-1)/n (helper-27's B3).
        counted = set(ids) | set(left_out)
        extra = [test for test, outcome in run.tests.items() if outcome in ("failed", "error") and test not in counted]
        failing += extra
    return TestRun(max(0, total - len(failing)), total, [_failure_name(test, run.tests.get(test)) for test in failing],
                   run.output, run.cpu_seconds, run.status, failing)


#: Written by `peagen init` beside a generated evaluator, from the seed's evaluation:
#: {"expected": [ids], "left_out": [ids], "why": text}. "expected": the tests the original
#: passes behind the process boundary, each of which every candidate must pass (one that does
#: not run, or is skipped, fails: a candidate that makes a test skip itself, or kills the
#: tests' process halfway, gains nothing). "left_out": the tests that fail on the user's
#: original only there (their arguments cannot cross the boundary, or they read state the
#: tests' process set), counted neither way; init says so, and names them.
TESTS_FILE = "peagen_tests.json"


def listed_tests(example_dir: str) -> Tuple[Optional[List[str]], List[str]]:
    """The tests TESTS_FILE in `example_dir` expects every run to pass, and those it leaves
    out; (None, []) when there is no such file."""
    target = os.path.join(example_dir, TESTS_FILE)
    if not os.path.exists(target):
        return None, []
    try:
        with open(target, encoding="utf-8") as fh:
            listed = json.load(fh)
        expected, left_out = listed["expected"], listed["left_out"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvaluatorError("%s is not {\"expected\": [ids], \"left_out\": [ids]}: %s" % (target, exc))
    for ids, may_be_empty in ((expected, False), (left_out, True)):
        if not isinstance(ids, list) or not (ids or may_be_empty) or not all(isinstance(test, str) for test in ids):
            raise EvaluatorError("%s: \"expected\" must be a list of test ids, \"left_out\" one that may be empty"
                                 % target)
    return expected, left_out


_MARKER_LINE = re.compile(r"^[ \t]*(?:#|//)[ \t]*EVOLVE-BLOCK-(?:START|END)\b[^\n]*\n?", re.MULTILINE)


def is_original_text(text: str, original: str) -> bool:
    """Whether a program's text is the original's but for the EVOLVE-BLOCK marker lines init adds
    (the example's seed): only then is it run in the tests' own process (tests_gate)."""
    return _MARKER_LINE.sub("", text) == _MARKER_LINE.sub("", original)


def tests_gate(command: str, project_dir: str, program: str, candidate: str, *, example_dir: str,
               evolved: List[str], is_original: bool, timeout: float = 300) -> TestRun:
    """The tests gate of generated evaluators: the project's tests with the candidate behind the
    process boundary (passed when run.passed == run.total). With init's TESTS_FILE, its expected
    tests must each pass and its left-out ones count neither way. Without it, when the
    candidate is the original (init's check of the seed), the run also says what to write
    there (original_passed): when the tests pass, the tests it passed; when they fail, the
    tests the original passes when they run again in the tests' own process, its failed_ids
    becoming those it passes there but not behind the boundary (a class whose setUpClass failed
    included; a test that did not run there, of a runner that ignores EVERY_TEST_ENV, offers
    nothing), unless some fail in both (the sandbox, not the boundary: nothing is then offered
    to leave out)."""
    expected, left_out = listed_tests(example_dir)
    run, outcomes = judge(command, project_dir, program, candidate, timeout=timeout, evolved=evolved,
                          expected=expected, left_out=left_out)
    if not is_original or expected is not None or not outcomes.tests:
        return run
    passed_outside = [test for test, outcome in outcomes.tests.items() if outcome == "passed"]
    if run.passed == run.total:
        run.original_passed = passed_outside
        return run
    _, inside = judge(command, project_dir, program, candidate, boundary=False, timeout=timeout)
    passed_inside = [test for test, outcome in inside.tests.items() if outcome == "passed"]
    reported = {test for test, outcome in outcomes.tests.items() if outcome not in UNJUDGED}
    # A failure outside any test on the original there (ufo's "Unhandled Errors" in the sandbox,
    # from its read-only node_modules) is the sandbox's: left out as well, it counts neither way,
    # and one more of them on a candidate takes a pass away (count()).
    marks = [test for test in reported if _OUTSIDE_TESTS.search(test) and outcomes.tests.get(test) in ("failed", "error")]
    if passed_inside and reported <= set(passed_inside) | set(marks):
        # A test that did not run behind the boundary is offered only when its runner was told to
        # run every test: another's may have stopped before it (`tap --bail`), for any program.
        unexplained = [test for test in passed_inside if test not in reported and not test.startswith(EVERY_TEST_RUNNERS)]
        if unexplained:
            return run
        run.failed_ids = [test for test in passed_inside if test not in set(passed_outside)] + marks
        run.original_passed = passed_inside
    return run


#: The ids the runners' reporters give a failure that no test carries (harness/js's jest, vitest
#: and mocha reporters): not tests, so never among those the original passes.
_OUTSIDE_TESTS = re.compile(r"::\(the file failed outside its tests\)$|^\w+:\((?:unhandled error|an error after the run) \d+\)$")


#: What the original's failing tests say when the boundary, not the original, failed them (the
#: texts of boundary.py, peagen-standin.js and the child's sandbox). The original is trusted,
#: so its output may decide; an honest failure costs no second run of the original.
BOUNDARY_TROUBLE = re.compile(r"process boundary|process of its own|refused by the sandbox|the candidate's process|"
                              r"not allowed here|cannot be sent")

FAILURE_WORDS = {"failed": "FAIL", "error": "ERROR", "skipped": "SKIPPED (counts as failed)",
                 "xfailed": "EXPECTED FAILURE (counts as failed)", "xpassed": "UNEXPECTED SUCCESS (counts as failed)",
                 None: "NOT RUN"}


def _failure_name(test: str, outcome: Optional[str]) -> str:
    """As unittest names a failure: `FAIL: test_name (its full id)`."""
    full = test.split(":", 1)[1]
    # pytest's ids end with the test's name after "::" (its parameters may hold dots: "[42.0 Ko]");
    # unittest's are dotted paths, a subtest's followed by its parameters ("t.T.test_a (x=1.5)").
    if "::" in full or test.startswith(("node:", "mocha:")):
        short = full.rsplit("::", 1)[-1]
    else:
        path, space, parameters = full.partition(" ")
        short = path.rsplit(".", 1)[-1] + space + parameters
    return "%s: %s (%s)" % (FAILURE_WORDS.get(outcome, "FAIL"), short, full)


def judge(command: str, project_dir: str, program: str, candidate: str, *, reference: Optional[str] = None,
          expected: Optional[List[str]] = None, boundary: bool = True, timeout: float = 300,
          call_timeout: float = 60, seed: Optional[int] = None,
          evolved: Optional[List[str]] = None, tests_alone: bool = False,
          left_out: Sequence[str] = ()) -> Tuple[TestRun, Outcomes]:
    """The project's tests in a fresh copy of it, with `candidate` as `program` (behind the
    process boundary unless told otherwise); counted against `expected` (see count()).
    `tests_alone`: nothing else compares the evolved functions' answers (objective tests)."""
    work = tempfile.mkdtemp(prefix="peagen-tests-")
    try:
        copy = assemble(project_dir, program, candidate, work)
        # The candidate's process reads its own copy, outside the project the tests can see.
        private = os.path.join(work, "candidate" + os.path.splitext(program)[1])
        shutil.copyfile(candidate, private)
        place_program(copy, program, private, reference or os.path.join(project_dir, program),
                      boundary and boundary_supported(program), min(timeout, call_timeout), seed,
                      project_dir=project_dir, evolved=evolved, tests_alone=tests_alone)
        source_root = python_package(copy, program)[1] if program.endswith(".py") else None
        run = run_tests(command, copy, os.path.join(work, "report"), timeout, source_root)
        return count(run, expected, timeout, left_out), run
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_project_tests(command: str, project_dir: str, program: str, candidate: str, timeout: float = 300,
                      evolved: Optional[List[str]] = None) -> TestRun:
    """The candidate's run alone, behind the process boundary, every test it reports counted
    (the generated evaluators use tests_gate()). `evolved`: the evolved functions, else the
    original's markers, else every function."""
    return judge(command, project_dir, program, candidate, timeout=timeout, evolved=evolved)[0]


def main() -> int:
    from .policy import Policy, imports_of, optional_imports_of
    from .verdict import EXIT_EVALUATOR_FAILED, emit_verdict

    parser = argparse.ArgumentParser(prog="python3 -m peagen_harness.project_tests")
    parser.add_argument("candidate")
    parser.add_argument("--tests", required=True, help="the shell command that runs the project's tests")
    parser.add_argument("--project", required=True, help="the project's files, relative to the example directory")
    parser.add_argument("--program", required=True, help="the evolved file's path inside the project")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--call-timeout", type=float, default=60,
                        help="seconds one call of the candidate may take behind the process boundary")
    parser.add_argument("--in-process", action="store_true",
                        help="run the candidate inside the tests' process (weaker: see docs/trust.md)")
    parser.add_argument("--evolve", default=None,
                        help="the evolved functions, comma-separated (default: those inside the program's "
                             "EVOLVE-BLOCK markers, else every top-level function); the rest is the original's")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    metrics = {"tests_passed": 0, "tests_total": 0, "seed": args.seed}
    try:
        original = os.path.join(args.project, args.program)
        if not os.path.isfile(original):
            raise EvaluatorError("%s is not a file: --project and --program name the original" % original)
        with open(original, encoding="utf-8") as fh:
            reference_source = fh.read()
        with open(args.candidate, encoding="utf-8") as fh:
            source = fh.read()
        if original.endswith(".py"):
            # Cheap rejection before any test runs: what the candidate may import and call.
            package, root = python_package(args.project, args.program)
            policy = Policy(allowed_imports=imports_of(reference_source, package, root if package else None), package=package,
                            optional_imports=optional_imports_of(reference_source))
            tolerated = {p.split(": ", 1)[-1] for p in policy.check_source(reference_source)}
            problems = [p for p in policy.check_source(source) if p.split(": ", 1)[-1] not in tolerated]
            if problems:
                emit_verdict(False, 0, "maximize", metrics, "rejected by the static check: " + "; ".join(problems[:5]))
                return 0
        # --evolve (init writes it), else the original's markers, else every function: never the candidate's.
        evolved = [n for n in args.evolve.split(",") if n] if args.evolve is not None \
            else evolved_names(reference_source, javascript=not original.endswith(".py"))
        boundary = boundary_supported(args.program) and not args.in_process
        reference, reference_run = judge(args.tests, args.project, args.program, original, boundary=boundary,
                                         timeout=args.timeout, call_timeout=args.call_timeout, seed=args.seed,
                                         evolved=evolved, tests_alone=True)
        fallback = None
        if boundary and reference.passed < reference.total and BOUNDARY_TROUBLE.search(reference_run.output):
            # The original itself fails tests because of the boundary: do they pass in their own process?
            inside, inside_run = judge(args.tests, args.project, args.program, original, boundary=False,
                                       timeout=args.timeout)
            if inside.passed > reference.passed:
                fallback = ("the original passes %d of its tests in the tests' own process but %d behind the "
                            "process boundary (%s): the candidate runs in the tests' process, which it can "
                            "tamper with (docs/trust.md)" % (inside.passed, reference.passed,
                                                             "; ".join(reference.failed[:3])))
                sys.stderr.write("peagen: %s\n" % fallback)
                boundary, reference, reference_run = False, inside, inside_run
        # The original's skipped tests are not expected to pass; a test it ran that the
        # candidate's run skips counts as failed. Tests marked as expected failures count neither
        # way (test_report.OUTCOMES).
        expected = [test for test, outcome in reference_run.tests.items() if outcome not in UNJUDGED] or None
        run, candidate_run = judge(args.tests, args.project, args.program, args.candidate, reference=original, expected=expected,
                                   boundary=boundary, timeout=args.timeout, call_timeout=args.call_timeout, seed=args.seed,
                                   evolved=evolved, tests_alone=True)
        if candidate_run.status not in (0, None) and run.passed == run.total and run.total > 0 \
                and (reference_run.status == 0 or reference.passed < reference.total):
            # Every test passed, yet the command failed where the original's did not, or did only
            # for the tests it failed: something the runner does not pin on a test said no (an
            # assertion after its test ended that crashes jest, a teardown). As any failure outside
            # the original's tests, it takes a pass away (count()); helper-27's B2 fixed the
            # original's failing test and broke such a check.
            run.failed.append("the test command exited with status %s, with every test passed; on the original it %s" % (
                candidate_run.status, "exited with 0" if reference_run.status == 0 else "failed only for the tests it failed"))
            run.passed -= 1
        tie = 0.01 * reference.cpu_seconds / max(1e-9, reference.cpu_seconds + run.cpu_seconds)
        metrics.update(tests_passed=run.passed, tests_total=run.total, tests_cpu_ms=round(run.cpu_seconds * 1000, 3),
                       reference_tests_passed=reference.passed, process_boundary=1 if boundary else 0,
                       tests_report=1 if expected else 0, eval_seconds=round(time.monotonic() - started, 3))
        error = None if run.passed == run.total else run.failure_text()
        if fallback:  # said with every verdict of this mode, as the OpenEvolve adapter says its own
            error = "%s\n(%s)" % (error, fallback) if error else "warning: " + fallback
        emit_verdict(True, (run.passed + tie) / run.total, "maximize", metrics, error)
        return 0
    except (EvaluatorError, OSError) as exc:
        emit_verdict(False, 0, "maximize", metrics, "evaluator error: %s" % exc)
        return EXIT_EVALUATOR_FAILED


if __name__ == "__main__":
    from .verdict import run_evaluator
    run_evaluator(main, "maximize")
