"""The vector files both sides check (tests/vectors/<folder>/): what a folder's file holds, and
whether its generate.py (each has `vectors()` and `render()`) writes it again byte for byte."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).parent / "vectors"


def read(folder: str, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((VECTORS / folder / name).read_text(encoding="utf-8"))
    return loaded


def regenerates_identically(folder: str, name: str) -> bool:
    spec = importlib.util.spec_from_file_location(f"{folder}_vector_generator", VECTORS / folder / "generate.py")
    assert spec is not None and spec.loader is not None
    made = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(made)
    return bool(made.render(made.vectors()) == (VECTORS / folder / name).read_text(encoding="utf-8"))
