"""Every test that starts Chromium, a real agent or a service carries its tier's marker, so that
`-m "not browser and not interop and not services and not paced"` is the quick run it claims.

Read from the source, not run: a test needs a marker when it, a fixture it asks for, or a helper
of its own module reaches one of the things below. The marker may sit on the test, its class or
the module's `pytestmark`."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

import pytest

TESTS = Path(__file__).resolve().parent
NEEDS: dict[str, set[str]] = {
    # Fixtures and helpers that launch Debian's Chromium.
    "browser": {"browser", "sync_playwright", "async_playwright", "CHROMIUM", "chromium"},
    # Fixtures and helpers that start redis-server or coturn.
    "services": {"cluster", "own_cluster", "turn_cluster", "coturn", "Cluster", "RedisServer", "Coturn"},
    # The real third-party agents and their model stand-ins.
    "interop": {"AGENTS", "real_agents", "FakeModels"},
}
PROGRAMS = {
    "chromium": "browser",
    "redis-server": "services",
    "turnserver": "services",
    "tmux": "services",
    "bwrap": "services",
}
"""Programs a test may name in a command line or a `require`."""
SUPPORT_MODULES = {
    # Everything a test takes from these drives Chromium or a real agent.
    "tests.browser_pages": "browser",
    "tests.agents.real_agents": "interop",
    "tests.agents.fake_models": "interop",
}


@dataclass
class Module:
    path: Path
    tree: ast.Module
    defs: dict[str, ast.AST] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)
    """Names taken from a support module that implies a tier, with that tier."""
    marks: set[str] = field(default_factory=set)


def marks_of(node: ast.AST | None) -> set[str]:
    """`pytest.mark.X` and `pytest.mark.X(...)` anywhere in an expression (a list of marks too)."""
    found: set[str] = set()
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
            found.add(sub.attr)
    return found


def is_pytestmark(node: ast.AST) -> TypeGuard[ast.Assign]:
    return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)


def read(path: Path) -> Module:
    tree = ast.parse(path.read_text(), filename=str(path))
    module = Module(path, tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            module.defs[node.name] = node
        elif isinstance(node, ast.ImportFrom) and node.module in SUPPORT_MODULES:
            for alias in node.names:
                module.imported[alias.asname or alias.name] = SUPPORT_MODULES[node.module]
        elif is_pytestmark(node):
            module.marks |= marks_of(node.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    module.defs[target.id] = node
    return module


def words(node: ast.AST) -> set[str]:
    """The names, attributes, parameters, fixtures asked for by name, and programs named in strings
    that a definition mentions (its docstrings aside)."""
    found: set[str] = set()
    docstrings = {id(sub.value) for sub in ast.walk(node) if isinstance(sub, ast.Expr)}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.arg):
            found.add(sub.arg)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "getfixturevalue":
            found |= {a.value for a in sub.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in docstrings:
            # A command names its program first ("tmux", "/usr/bin/tmux -C"); prose that names one
            # ("install tmux") starts nothing.
            command = sub.value.split(maxsplit=1)
            if command and (program := command[0].rsplit("/", 1)[-1]) in PROGRAMS:
                found.add(f"program:{program}")
    return found


def reached(module: Module, start: ast.AST, conftest: Module) -> tuple[set[str], set[str]]:
    """Everything `start` mentions, through the module's own helpers and fixtures and conftest's;
    and the marks on those fixtures (a fixture's `pytest.param(..., marks=...)` marks its users)."""
    seen: set[int] = set()
    out: set[str] = set()
    marks: set[str] = set()
    todo = [start]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node is not start and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            marks |= set().union(*map(marks_of, node.decorator_list))
        mentioned = words(node)
        out |= mentioned
        for name in mentioned:
            for owner in (module, conftest):
                if name in owner.defs and owner.defs[name] is not node:
                    todo.append(owner.defs[name])
    return out, marks


def needed(mentioned: set[str], module: Module) -> set[str]:
    tiers = {tier for tier, triggers in NEEDS.items() if mentioned & triggers}
    tiers |= {PROGRAMS[name.removeprefix("program:")] for name in mentioned if name.startswith("program:")}
    return tiers | {module.imported[name] for name in mentioned if name in module.imported}


def functions_under_test(module: Module) -> list[tuple[ast.AST, set[str]]]:
    """Each test function with the marks on it and on its class."""
    found: list[tuple[ast.AST, set[str]]] = []
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            found.append((node, set().union(*map(marks_of, node.decorator_list))))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            outer = set().union(*map(marks_of, node.decorator_list))
            for item in node.body:
                if is_pytestmark(item):
                    outer |= marks_of(item.value)
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test"):
                    found.append((item, outer | set().union(*map(marks_of, item.decorator_list))))
    return found


def unmarked(path: Path) -> list[str]:
    conftest = read(TESTS / "conftest.py")
    module = read(path)
    problems = []
    for test, marks in functions_under_test(module):
        mentioned, fixture_marks = reached(module, test, conftest)
        missing = needed(mentioned, module) - marks - fixture_marks - module.marks
        if missing:
            problems.append(f"{path.name}::{getattr(test, 'name', '?')} needs {sorted(missing)}")
    return problems


def checked_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "node_modules" not in p.parts and p != Path(__file__))


def test_every_test_that_starts_chromium_an_agent_or_a_service_is_marked() -> None:
    problems = [problem for path in checked_files() for problem in unmarked(path)]
    assert problems == []


def test_the_check_finds_an_unmarked_browser_a_service_and_an_agent(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import pytest\n"
        "from tests.agents.real_agents import AGENTS\n"
        "def page(browser):\n    return browser.new_page()\n"
        "def test_a_page(browser):\n    page(browser)\n"
        "def test_via_a_helper(browser):\n    page(browser)\n"
        "@pytest.mark.browser\ndef test_marked(browser):\n    page(browser)\n"
        "def test_redis(own_cluster):\n    own_cluster()\n"
        "def test_tmux():\n    run(['tmux', 'new-session'])\n"
        "@pytest.mark.parametrize('agent', AGENTS)\ndef test_agent(agent):\n    pass\n"
        "def test_plain():\n    assert 1\n"
    )
    found = [line.split("::", 1)[1] for line in unmarked(sample)]
    assert found == [
        "test_a_page needs ['browser']",
        "test_via_a_helper needs ['browser']",
        "test_redis needs ['services']",
        "test_tmux needs ['services']",
        "test_agent needs ['interop']",
    ]


@pytest.mark.parametrize("marker", ["browser", "interop", "services", "paced"])
def test_each_tier_is_registered(pytestconfig: pytest.Config, marker: str) -> None:
    assert any(line.startswith(f"{marker}:") for line in pytestconfig.getini("markers"))
