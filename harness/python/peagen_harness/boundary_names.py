"""Which functions of a program are evolved: the top-level definitions that overlap its
EVOLVE-BLOCK-START / EVOLVE-BLOCK-END regions (a block around a definition, or a block inside a
definition's body). The boundary forwards only them to the candidate's process; everything
else a judge uses comes from the trusted original. Read from the trusted original's text,
never from a candidate's: a candidate could empty its block to have the original judged."""
from __future__ import annotations

import ast
import re
from typing import List, Optional, Tuple

MARKER_START, MARKER_END = "EVOLVE-BLOCK-START", "EVOLVE-BLOCK-END"
_PYTHON_DEF = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
_JS_DEF = re.compile(r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\s*\*?\s*|class\s+|(?:const|let|var)\s+)"
                     r"([A-Za-z_$][\w$]*)")
# `exports.f = function`: a CommonJS export assigned in place.
_JS_EXPORTS_ASSIGNED = re.compile(r"^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=")
# A top-level object literal's opening line, and a function-valued member of it (shared/functionScan.ts).
_JS_OBJECT_OPENER = re.compile(r"^(?:(?:module\.)?exports(?:\.[A-Za-z_$][\w$]*)?\s*=|export\s+default|"
                               r"(?:export\s+)?(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*(?::[^=]+)?=)\s*\{\s*$")
_JS_MEMBER = re.compile(r"^(\s+)(?:async\s+)?([A-Za-z_$][\w$]*)\s*(?:(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^{]+)?\{|"
                        r":\s*(?:async\s+)?(?:function\b|(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>))")
_NOT_MEMBERS = {"if", "for", "while", "switch", "catch", "function", "return", "with", "do", "else", "get", "set", "constructor"}


def _continues(line: str, javascript: bool) -> bool:
    """Whether `line` still belongs to the top-level definition above it (its body, its close)."""
    if not line.strip() or line[0] in " \t":
        return True
    return javascript and line[0] in "})]"


def definitions(source: str, javascript: bool = False) -> List[Tuple[str, int, int]]:
    """The top-level definitions of `source`: (name, first line, last line), 0-based. Python
    by its syntax tree (decorators included; a signature Black splits over lines is one
    definition), JavaScript by its lines."""
    if not javascript:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            return [(node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1, (node.end_lineno or node.lineno) - 1)
                    for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    lines = source.splitlines()
    pattern = _JS_DEF if javascript else _PYTHON_DEF
    found: List[Tuple[str, int, int]] = []
    for index, line in enumerate(lines):
        match = pattern.match(line) or (_JS_EXPORTS_ASSIGNED.match(line) if javascript else None)
        opener = javascript and _JS_OBJECT_OPENER.match(line) is not None
        if not match and not opener:
            continue
        end = index
        while end + 1 < len(lines) and _continues(lines[end + 1], javascript):
            end += 1
        if match:
            found.append((match.group(1), index, end))
        if opener:
            found.extend(_members(lines, index, end))
    return found


def _members(lines: List[str], opener: int, end: int) -> List[Tuple[str, int, int]]:
    """The function-valued members of the object literal opened on line `opener` (its first
    level only): `f(x) {`, `f: function (`, `f: (x) =>`, each to the line before its next sibling."""
    members: List[Tuple[str, int, int]] = []
    level: Optional[int] = None
    for index in range(opener + 1, end + 1):
        line = lines[index]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if level is None:
            level = indent
        if indent != level or line.lstrip()[0] in "})]":
            continue
        if members and members[-1][2] == -1:
            members[-1] = (members[-1][0], members[-1][1], index - 1)
        match = _JS_MEMBER.match(line)
        if match and match.group(2) not in _NOT_MEMBERS:
            members.append((match.group(2), index, -1))
    if members and members[-1][2] == -1:
        members[-1] = (members[-1][0], members[-1][1], end)
    return members


def evolved_names(source: str, javascript: bool = False) -> Optional[List[str]]:
    """The names of the top-level definitions that overlap the EVOLVE-BLOCK regions of
    `source`; every definition's name when the regions hold none (code outside any definition,
    whose change only the functions using it can show); None when it has no markers."""
    lines = source.splitlines()
    blocks: List[Tuple[int, int]] = []
    start: Optional[int] = None
    for index, line in enumerate(lines):
        if MARKER_START in line:
            start = index
        elif MARKER_END in line and start is not None:
            blocks.append((start, index))
            start = None
    if start is not None:
        blocks.append((start, len(lines)))
    if not blocks:
        return None
    defined = definitions(source, javascript)
    overlapping = [(name, first, last) for name, first, last in defined if any(first <= end and start <= last for start, end in blocks)]
    # A member of an object inside a block is evolved, not the object holding it.
    names = [name for name, first, last in overlapping
             if not any((f, l) != (first, last) and first <= f and l <= last for _, f, l in overlapping)]
    return names or [name for name, _, _ in defined]
