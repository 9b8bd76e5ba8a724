"""Writes py_*.json: Yjs updates made by pycrdt, with the board items yjs must get from them.

Run: /work/venv/bin/python tests/vectors/board/generate.py; check them in yjs with check.mjs.
Fixed client ids and item ids make the output byte-for-byte reproducible (tests/test_board.py checks).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pycrdt import Array, Doc, Map, Text, TransactionEvent

HERE = Path(__file__).parent


def _record(doc: Doc) -> list[bytes]:
    updates: list[bytes] = []

    def keep(event: TransactionEvent) -> None:
        updates.append(event.update)

    # The subscription lives as long as the doc, which is all a generator run needs.
    doc.observe(keep)
    return updates


def _vector(name: str, description: str, doc: Doc, updates: list[bytes]) -> dict[str, Any]:
    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return {
        "name": name,
        "description": description,
        "update": b64(doc.get_update()),
        "updates": [b64(update) for update in updates],
        "expected": doc.get("items", type=Map).to_py() or {},
    }


def _note(x: float, y: float, body: str, color: str = "#ffd43b") -> Map:
    return Map({"kind": "note", "x": x, "y": y, "w": 200.0, "h": 200.0, "z": 1.0, "color": color, "text": Text(body)})


def note_unicode() -> dict[str, Any]:
    doc = Doc(client_id=201)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    items["n1"] = _note(0.0, 0.0, "Grüße 😀 世界 — ok")
    text = items["n1"]["text"]
    # pycrdt offsets are UTF-8 bytes: "Grüße " is 8 bytes, the emoji 4, so 12 is just after it.
    text.insert(12, "✨X")
    # Delete "世": 12 + "✨X" (4 bytes) + " " = 17, and it is 3 bytes long.
    del text[17:20]
    items["n2"] = _note(300.0, 0.0, "日本語のメモ 🎉👩‍👩‍👧", "#a9e34b")
    return _vector("note_unicode", "notes with emoji and CJK, edited in the middle after an emoji", doc, updates)


def text_and_shapes() -> dict[str, Any]:
    doc = Doc(client_id=202)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    with doc.transaction():
        items["t1"] = Map(
            {"kind": "text", "x": -40.5, "y": 12.25, "w": 240.0, "h": 60.0, "z": 3.0}
            | {"color": "#1e1e1e", "text": Text("Plain text")}
        )
        items["s1"] = Map(
            {"kind": "shape", "shape": "rect", "x": 10.0, "y": 20.0, "w": 160.0, "h": 100.0, "z": 1.0}
            | {"color": "#4dabf7", "text": Text("Box")}
        )
        items["s2"] = Map(
            {"kind": "shape", "shape": "ellipse", "x": 200.0, "y": 20.0, "w": 120.0, "h": 120.0, "z": 2.0}
            | {"color": "red", "text": Text("")}
        )
    items["s2"]["text"].insert(0, "Ellipse ○")
    return _vector("text_and_shapes", "a text item, a rect and an ellipse with labels", doc, updates)


def _arrow(source: str, target: str, w: float) -> Map:
    return Map(
        {"kind": "arrow", "from": source, "to": target, "x": 0.0, "y": 0.0, "w": w, "h": 200.0, "z": 2.0}
        | {"color": "#495057"}
    )


def arrow() -> dict[str, Any]:
    doc = Doc(client_id=203)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    with doc.transaction():
        items["a"] = _note(0.0, 0.0, "from")
        items["b"] = _note(400.0, 0.0, "to")
    items["ar"] = _arrow("a", "b", 600.0)
    return _vector("arrow", "two notes connected by an arrow", doc, updates)


def stroke() -> dict[str, Any]:
    doc = Doc(client_id=204)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    points = Array([0.0, 0.0, 1.5, 2.25, 10.0, -3.0, 20.125, 40.0])
    items["st"] = Map(
        {"kind": "stroke", "x": 50.0, "y": 60.0, "w": 21.0, "h": 43.0, "z": 1.0, "color": "#000000"}
        | {"points": points}
    )
    with doc.transaction():
        items["st"]["x"] = 70.0
        items["st"]["y"] = 80.5
    return _vector("stroke", "a freehand stroke (flat points), moved once", doc, updates)


def frames() -> dict[str, Any]:
    doc = Doc(client_id=205)
    updates = _record(doc)
    items = doc.get("items", type=Map)

    def frame(x: float, y: float, z: float, title: str, kind: str, ref: str) -> Map:
        return Map(
            {"kind": "frame", "x": x, "y": y, "w": 640.0, "h": 480.0, "z": z, "color": "#868e96"}
            | {"title": title, "holds": Map({"type": kind, "ref": ref})}
        )

    with doc.transaction():
        items["f1"] = frame(0.0, 0.0, 1.0, "Claude", "agent", "sess-1")
        items["f2"] = frame(700.0, 0.0, 2.0, "shell", "terminal", "term-1")
        items["f3"] = frame(0.0, 520.0, 3.0, "README", "file", "docs/README — 説明.md")
    return _vector("frames", "frames holding an agent session, a terminal and a file", doc, updates)


def delete() -> dict[str, Any]:
    doc = Doc(client_id=206)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    with doc.transaction():
        items["a"] = _note(0.0, 0.0, "keep")
        items["b"] = _note(300.0, 0.0, "delete me")
        items["ar"] = _arrow("a", "b", 500.0)
    with doc.transaction():
        del items["ar"]
        del items["b"]
    del items["a"]["text"][0:2]
    return _vector("delete", "a note and its arrow deleted, a text partly deleted", doc, updates)


def drag() -> dict[str, Any]:
    doc = Doc(client_id=207)
    updates = _record(doc)
    items = doc.get("items", type=Map)
    items["n"] = _note(0.0, 0.0, "drag me")
    for step in range(1, 11):
        with doc.transaction():
            items["n"]["x"] = step * 12.5
            items["n"]["y"] = step * 3.0
    return _vector("drag", "a note dragged: a sequence of position updates", doc, updates)


def concurrent() -> dict[str, Any]:
    a, b = Doc(client_id=1), Doc(client_id=2)
    updates = _record(a)
    items_a = a.get("items", type=Map)
    items_a["n"] = _note(0.0, 0.0, "shared 😀 text")
    items_b = b.get("items", type=Map)
    b.apply_update(a.get_update())
    with a.transaction():
        items_a["n"]["x"] = 100.0
        items_a["n"]["text"].insert(0, "A:")
        items_a["fromA"] = _note(500.0, 0.0, "added by A")
    with b.transaction():
        items_b["n"]["x"] = 200.0
        items_b["n"]["y"] = 50.0
        # After the emoji, in UTF-8 bytes: "shared " 7 + emoji 4.
        items_b["n"]["text"].insert(11, " B")
        items_b["fromB"] = _note(800.0, 0.0, "added by B 世界")
    a.apply_update(b.get_update(a.get_state()))
    b.apply_update(a.get_update(b.get_state()))
    del items_a["fromB"]
    b.apply_update(a.get_update(b.get_state()))
    if items_a.to_py() != items_b.to_py():
        raise AssertionError("concurrent docs did not converge")
    return _vector("concurrent", "two clients' concurrent moves, text edits, adds and a delete, merged", a, updates)


GENERATORS: list[Callable[[], dict[str, Any]]] = [
    note_unicode,
    text_and_shapes,
    arrow,
    stroke,
    frames,
    delete,
    drag,
    concurrent,
]


def render(vector: dict[str, Any]) -> str:
    return json.dumps(vector, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    for generate in GENERATORS:
        vector = generate()
        (HERE / f"py_{vector['name']}.json").write_text(render(vector), encoding="utf-8")


if __name__ == "__main__":
    main()
