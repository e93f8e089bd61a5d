"""The layers import one way (DESIGN.md, README's map): every import of every module, those inside
functions too, is checked against what its package may use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = {"bgboard", "hardware", "vision", "calibration", "synthetic", "referee", "bench", "tools", "tests"}

# the rules: positions, plays, the judge, the game, the match, the notations and the table's words
RULES = {
    "bgboard",
    "referee.moves",
    "referee.judge",
    "referee.cube",
    "referee.rules_options",
    "referee.scoring",
    "referee.events",
    "referee.game",
    "referee.match",
    "referee.narration",
    "referee.notation",
    "referee.variations",
    "referee.coaching",
    "referee.steps",
}
# the session and what it is made of: the rules, what vision reports (plain values) and the table's
# signal and button vocabulary; never a camera, a pin, OpenCV or numpy
SESSION = RULES | {
    "vision.reading",
    "hardware.signals",
    "referee.observe",
    "referee.throws",
    "referee.watch",
    "referee.unread",
    "referee.cube_watch",
    "referee.turns",
    "referee.buttons",
    "referee.resume",
    "referee.recheck",
    "referee.quiet",
    "referee.session",
    "referee.journal",
    "referee.export",
    "referee.house",
    "referee.monitor",
    "referee.lesson",
}
# (module prefix, project modules it may import); the first prefix that matches a module applies
MAY_IMPORT: list[tuple[str, set[str]]] = [
    ("bgboard", {"bgboard"}),
    ("hardware", {"hardware"}),
    ("vision", {"bgboard", "vision"}),
    ("calibration", {"bgboard", "vision", "calibration"}),
    ("synthetic", RULES | {"synthetic", "hardware.frames", "hardware.signals"}),
    ("referee.loop", PROJECT - {"bench", "tools", "tests"}),
    ("referee.feed", PROJECT - {"bench", "tools", "tests"}),
    ("referee.service", PROJECT - {"bench", "tools", "tests"}),
    ("referee.cli", PROJECT - {"bench", "tools", "tests"}),
    (
        "referee.config",
        RULES | {"referee.config", "hardware.config", "referee.console.address", "referee.console.guard"},
    ),
    # the console reads the session and the record, and hands frames to its feed
    ("referee.console", SESSION | {"referee.console", "hardware.frames"}),
    ("referee.notation", RULES),
    *((m, RULES) for m in sorted(RULES - {"bgboard", "referee.notation"})),
    ("referee", SESSION),
    ("tools", PROJECT - {"bench", "tests"}),
    ("tests", PROJECT - {"bench"}),
    ("bench", PROJECT - {"tests"}),
]
# libraries that touch images or devices, and the packages that may use them
HEAVY = {
    "cv2": (
        "vision",
        "calibration",
        "synthetic",
        "hardware",
        "referee.loop",
        "referee.cli",
        "referee.console.feed",
        "bench",
        "tools",
        "tests",
    ),
    "numpy": (
        "vision",
        "calibration",
        "synthetic",
        "hardware",
        "referee.loop",
        "referee.cli",
        "referee.console.feed",
        "bench",
        "tools",
        "tests",
    ),
    "gpiozero": ("hardware", "tests"),
    "picamera2": ("hardware.picamera",),
}


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in PROJECT:
            continue
        name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        out.append((name, path))
    return out


def imports(path: Path) -> set[str]:
    """Every module an import statement names, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _within(name: str, prefixes: set[str] | tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _rule(module: str) -> set[str]:
    return next(allowed for prefix, allowed in MAY_IMPORT if _within(module, (prefix,)))


@pytest.mark.parametrize(("module", "path"), modules(), ids=lambda v: v if isinstance(v, str) else "")
def test_imports_follow_the_layers(module: str, path: Path) -> None:
    allowed = _rule(module)
    wrong = []
    for name in sorted(imports(path)):
        top = name.split(".")[0]
        # "from vision import dice" names vision.dice too; "import vision" names the package alone
        outside = not _within(name, allowed) and not _within(name, (module,))
        if top in PROJECT and outside and not any(a.startswith(name + ".") for a in allowed):
            wrong.append(name)
        if top in HEAVY and not _within(module, HEAVY[top]):
            wrong.append(name)
    assert not wrong, f"{module} may not import {', '.join(wrong)}"


def test_the_rule_table_knows_every_module() -> None:
    assert all(_rule(m) is not None for m, _ in modules())
    assert _rule("referee.game") == RULES and _rule("referee.session") == SESSION
