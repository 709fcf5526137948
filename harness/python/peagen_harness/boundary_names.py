"""Which functions of a program are evolved: those defined at the top level between its
EVOLVE-BLOCK-START and EVOLVE-BLOCK-END comment lines. The boundary forwards only them to the
candidate's process; everything else a judge uses comes from the trusted original."""
from __future__ import annotations

import re
from typing import List, Optional

MARKER_START, MARKER_END = "EVOLVE-BLOCK-START", "EVOLVE-BLOCK-END"
_PYTHON_DEF = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
_JS_DEF = re.compile(r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\s*\*?\s*|class\s+|(?:const|let|var)\s+)"
                     r"([A-Za-z_$][\w$]*)")


def evolved_names(source: str, javascript: bool = False) -> Optional[List[str]]:
    """The names defined at the top level inside the EVOLVE-BLOCK markers of `source` (read as
    text: a candidate's file may not even parse), or None when it has no markers."""
    definition = _JS_DEF if javascript else _PYTHON_DEF
    names: List[str] = []
    inside, seen = False, False
    for line in source.splitlines():
        if MARKER_START in line:
            inside = seen = True
        elif MARKER_END in line:
            inside = False
        elif inside:
            match = definition.match(line)
            if match:
                names.append(match.group(1))
    return names if seen else None
