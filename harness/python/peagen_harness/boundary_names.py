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
        match = pattern.match(line)
        if not match:
            continue
        end = index
        while end + 1 < len(lines) and _continues(lines[end + 1], javascript):
            end += 1
        found.append((match.group(1), index, end))
    return found


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
    names = [name for name, first, last in defined if any(first <= end and start <= last for start, end in blocks)]
    return names or [name for name, _, _ in defined]
