"""What a program may use: the import allow-list and the names and attributes an evaluator
forbids. The same Policy drives the static check (helpful messages before anything runs) and
the sandbox of the program's process (which enforces it whatever the source looks like)."""
from __future__ import annotations

import ast
import importlib
import os
import types
from dataclasses import dataclass, field
from typing import FrozenSet, List, Mapping, Optional

# Names no program may use, with the message the static check gives.
ALWAYS_BANNED = {
    "eval": "uses eval()", "exec": "uses exec()", "compile": "uses compile()",
    "__import__": "uses __import__()", "getattr": "uses getattr()",
    "setattr": "uses setattr()", "delattr": "uses delattr()", "vars": "uses vars()",
    "globals": "uses globals()", "locals": "uses locals()", "dir": "uses dir()",
    "open": "uses open()", "breakpoint": "uses breakpoint()", "input": "uses input()",
    "help": "uses help()", "exit": "uses exit()", "quit": "uses quit()",
    "memoryview": "uses memoryview()",
}
#: Banned names a program may still name as the type in isinstance()/issubclass().
TYPE_TEST_ONLY = frozenset(("memoryview",))
# Attributes that lead to frames, code objects and tracebacks.
FRAME_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")


@dataclass(frozen=True)
class Policy:
    """allowed_imports: exact module names a program may import (`__future__` always may);
    empty = no imports at all. forbidden_names: extra built-in names to refuse, with the
    message (they are also removed from the program's built-ins). forbidden_attributes:
    attribute names to refuse statically (e.g. {"sort": "..."}). forbidden_modules: modules
    that get a specific message instead of the generic allow-list one. allowed_audit_events:
    audit events the sandbox lets through besides the harmless built-in ones (rarely needed)."""

    allowed_imports: FrozenSet[str] = frozenset()
    forbidden_names: Mapping[str, str] = field(default_factory=dict)
    forbidden_attributes: Mapping[str, str] = field(default_factory=dict)
    forbidden_modules: Mapping[str, str] = field(default_factory=dict)
    recursion_limit: int = 10000
    allowed_audit_events: FrozenSet[str] = frozenset()
    #: The package the program lives in (e.g. "roman" for roman/core.py): its relative imports
    #: resolve against it and are then allowed like absolute ones. None: none is allowed.
    package: Optional[str] = None
    #: Modules the original can run without (optional_imports_of): the program's process looks
    #: for the others in the interpreter's own site-packages too, never for these (the original
    #: was traced and compared without them).
    optional_imports: FrozenSet[str] = frozenset()

    def check_source(self, source: str) -> List[str]:
        """Human-readable violations of this policy in `source` (empty when acceptable)."""
        return static_check(source, self)


def resolve_relative(module: Optional[str], level: int, package: Optional[str]) -> Optional[str]:
    """The absolute name of `from .module import ...` (level dots) in `package`, or None when
    it reaches above the package (or there is none)."""
    if not package:
        return None
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = ".".join(parts[:len(parts) - (level - 1)])
    return "%s.%s" % (base, module) if module else base


def imports_of(source: str, package: Optional[str] = None, package_root: Optional[str] = None) -> FrozenSet[str]:
    """The modules `source` imports (absolute imports, and `module.name` for each name imported
    from a module; relative ones resolved in `package`): what a candidate of this original may
    import. A star import from a module of the package (`from ._regex import *`) also brings
    the modules that module imports (its `re`), read from its file under `package_root`, the
    folder the package is imported from."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module if not node.level else resolve_relative(node.module, node.level, package)
            if module:
                names.add(module)
                names.update("%s.%s" % (module, alias.name) for alias in node.names)
                if any(alias.name == "*" for alias in node.names) and in_package(module, package) and package_root:
                    names.update(_star_imports(module, package_root))
    return frozenset(names)


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def optional_imports_of(source: str) -> FrozenSet[str]:
    """The modules `source` imports only inside a `try` that catches their absence
    (`try: import numpy except ImportError: numpy = None`): the program runs without them.
    Empty when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()

    def imported(nodes) -> set:
        names = set()
        for node in nodes:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    names.update(alias.name for alias in inner.names)
                elif isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                    names.add(inner.module)
        return names

    def catches_absence(handler: ast.ExceptHandler) -> bool:
        caught = handler.type
        kinds = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        return caught is None or any(isinstance(kind, (ast.Name, ast.Attribute)) and
                                     (kind.id if isinstance(kind, ast.Name) else kind.attr) in _IMPORT_ERRORS
                                     for kind in kinds)

    tries = [node for node in ast.walk(tree)
             if isinstance(node, ast.Try) and any(catches_absence(handler) for handler in node.handlers)]
    guarded = set()
    inside = set()
    for node in tries:
        guarded |= imported(node.body)
        inside.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    # A module also imported outside every such `try` is needed after all.
    needed = imported(node for node in ast.walk(tree) if id(node) not in inside and isinstance(node, (ast.Import, ast.ImportFrom)))
    return frozenset(guarded - needed)


def in_package(module: str, package: Optional[str]) -> bool:
    """Whether `module` is the top-level package of `package` or inside it."""
    root = (package or "").split(".")[0]
    return bool(root) and (module == root or module.startswith(root + "."))


def _star_imports(module: str, package_root: str) -> FrozenSet[str]:
    """The modules a star import of the package's module `module` brings: those its top level
    imports under a name the star import copies (public, or listed in a literal `__all__`),
    read from its source file (none when it cannot be read)."""
    base = os.path.join(package_root, *module.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        try:
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            continue
        parent = (module if path.endswith("__init__.py") else module.rpartition(".")[0]) or None
        listed = None
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                try:
                    listed = set(ast.literal_eval(node.value))
                except ValueError:
                    listed = set()
        brought = set()
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if (bound in listed) if listed is not None else not bound.startswith("_"):
                        brought.add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                source = node.module if not node.level else resolve_relative(node.module, node.level, parent)
                for alias in node.names:
                    bound = alias.asname or alias.name
                    if source and ((bound in listed) if listed is not None else not bound.startswith("_")):
                        brought.update({source, "%s.%s" % (source, alias.name)})
        return frozenset(brought)
    return frozenset()


def _module_valued(module_name: str, attr: str) -> bool:
    try:
        mod = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001
        return True
    return isinstance(getattr(mod, attr, None), types.ModuleType)


def static_check(source: str, policy: Policy) -> List[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return ["syntax error: %s (line %s)" % (exc.msg, exc.lineno)]
    problems: List[str] = []
    allowed = set(policy.allowed_imports)
    allowed_text = ", ".join(sorted(allowed)) if allowed else "none (this program may not import anything)"
    banned = dict(ALWAYS_BANNED, **policy.forbidden_names)

    def bad(node: ast.AST, text: str) -> None:
        problems.append("line %s: %s" % (getattr(node, "lineno", "?"), text))

    def check_attr(node: ast.AST, attr: str) -> None:
        if attr in policy.forbidden_attributes:
            bad(node, policy.forbidden_attributes[attr])
        elif attr in ("format", "format_map"):
            # A format string reads attributes by name ("{0.__globals__}"), and the string can
            # be built at run time, beyond any static check: refuse the method itself.
            bad(node, "uses str.%s, which reaches attributes by name from a string; "
                      "use an f-string or %%-formatting" % attr)
        elif attr.startswith("_"):
            bad(node, "accesses the private/dunder attribute .%s" % attr)
        elif attr.startswith(FRAME_PREFIXES):
            bad(node, "accesses the introspection attribute .%s" % attr)

    def refuse_module(node: ast.AST, name: str, how: str) -> bool:
        root = name.split(".")[0]
        for key in (name, root):
            if key in policy.forbidden_modules:
                bad(node, "%s %s (%s)" % (how, key, policy.forbidden_modules[key]))
                return True
        if name in allowed or name == "__future__":
            return False
        hint = ""
        if name == "sys":
            hint = " (the harness already sets the recursion limit to %d)" % policy.recursion_limit
        bad(node, "%s module %r is not allowed%s; allowed: %s" % (how, name, hint, allowed_text))
        return True

    # The names modules are bound to (`import math`, `import numpy as np`, `from os import path`):
    # a program changes none of their attributes. In the tests' own process (the weaker mode)
    # `math.isclose = lambda *a, **k: True` would change what the tests compare with.
    modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules.update(alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   for alias in node.names if node.module and _module_valued(node.module, alias.name))

    # memoryview may be named where a type is tested for (`isinstance(v, (bytes, memoryview))`);
    # the program's process gives it a type that cannot be called (_child._type_test_only).
    type_tests = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") \
                and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            type_tests.update(id(k) for k in kinds if isinstance(k, ast.Name) and k.id in TYPE_TEST_ONLY)

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules:
                bad(node, "changes .%s of the module %s: a program may not patch what others import" % (node.attr, root.id))
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not refuse_module(node, alias.name, "import of") and "." in alias.name \
                        and alias.name.split(".")[0] not in allowed:
                    bad(node, "'import %s' is not allowed (use 'from %s import name')"
                        % (alias.name, alias.name))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = resolve_relative(node.module, node.level, policy.package) or ""
            if node.level and not mod:
                bad(node, "relative imports are not allowed" if not policy.package
                    else "the relative import reaches above the package %s" % policy.package)
            elif not refuse_module(node, mod, "import from") and mod != "__future__":
                for alias in node.names:
                    name = alias.name
                    if name == "*":
                        # From the user's own package only (`from ._regex import *`); the
                        # candidate's process checks the names it brings.
                        if not in_package(mod, policy.package):
                            bad(node, "'from %s import *' is not allowed" % mod)
                    elif name.startswith("_"):
                        bad(node, "imports the private name %s from %s" % (name, mod))
                    elif name in banned:
                        bad(node, "imports %s: %s" % (name, banned[name]))
                    elif _module_valued(mod, name) and "%s.%s" % (mod, name) not in allowed:
                        bad(node, "imports the module %s.%s" % (mod, name))
        elif isinstance(node, ast.Name):
            if node.id in banned and not (id(node) in type_tests and node.id not in policy.forbidden_names):
                bad(node, banned[node.id])
            elif node.id.startswith("__") and node.id != "__name__":
                bad(node, "uses the dunder name %s" % node.id)
        elif isinstance(node, ast.Attribute):
            check_attr(node, node.attr)
        elif isinstance(node, ast.MatchClass):
            for attr in node.kwd_attrs:
                check_attr(node, attr)
    return problems
