"""The project's files that run code later, or that say what canvas allows.

An agent that can write one of these can make the host run code the next time the host does
something ordinary (commits, opens the folder in an editor, enters it with direnv, runs another
agent in it, restarts canvas): so they are read-only to a confined agent, and a write to one is
never a rule's silent yes. The list, and why each is on it, is adr/0026-confinement-that-holds.md.
"""

from __future__ import annotations

import posixpath

GIT_PROTECTED = ("hooks", "info", "config")
"""Inside `.git/`: the hooks git runs, the attributes and excludes it applies, and its config
(which names programs: `core.fsmonitor`, `core.hooksPath`, filters, aliases)."""

RUNS_LATER_DIRS = {
    ".canvas": "canvas's own state",
    ".husky": "git hooks (husky)",
    ".githooks": "git hooks",
    ".vscode": "editor tasks and settings (VS Code)",
    ".idea": "editor run configurations (JetBrains)",
    ".zed": "editor tasks (Zed)",
    ".devcontainer": "container set-up commands",
    ".claude": "Claude Code's project settings and hooks",
    ".gemini": "Gemini CLI's project settings",
    ".codex": "Codex's project settings",
    ".opencode": "opencode's project plugins",
}
"""Folders, at the project's top, whose files other tools run or obey without asking."""

RUNS_LATER_FILES = {
    ".canvasignore": "what canvas hides from guests and agents",
    ".envrc": "shell set-up run on entering the folder (direnv)",
    ".pre-commit-config.yaml": "git hooks (pre-commit)",
    "lefthook.yml": "git hooks (lefthook)",
    ".lefthook.yml": "git hooks (lefthook)",
    ".nvim.lua": "editor start-up code (Neovim)",
    ".nvimrc": "editor start-up code (Neovim)",
    ".exrc": "editor start-up code (Vim)",
    ".mcp.json": "programs an agent starts (MCP servers)",
    "opencode.json": "opencode's project plugins and commands",
    "opencode.jsonc": "opencode's project plugins and commands",
}
"""Files, at the project's top, that other tools run or obey without asking."""


def runs_later_reason(rel: str) -> str | None:
    """Why the project-relative path `rel` is one of the files that run code later, or None."""
    parts = [part for part in posixpath.normpath(rel).split("/") if part not in ("", ".")]
    if not parts or parts[0] == "..":
        return None
    top = parts[0]
    if top == ".git" and len(parts) > 1 and parts[1] in GIT_PROTECTED:
        return f"git runs or obeys .git/{parts[1]}"
    if top in RUNS_LATER_DIRS:
        return f"{top}/ holds {RUNS_LATER_DIRS[top]}"
    if len(parts) == 1 and top in RUNS_LATER_FILES:
        return f"{top} holds {RUNS_LATER_FILES[top]}"
    return None


def project_relative(path: str, root: str) -> str | None:
    """`path` (absolute, or relative to `root`) relative to `root`, or None if it lies outside."""
    root = posixpath.normpath(root)
    joined = posixpath.normpath(path if posixpath.isabs(path) else posixpath.join(root, path))
    if joined == root:
        return "."
    if not joined.startswith(root.rstrip("/") + "/"):
        return None
    return posixpath.relpath(joined, root)
