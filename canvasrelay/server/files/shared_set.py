"""The shared set: which files under the project folder may ever leave the machine.

The rules are written down in adr/0002-the-shared-set.md. Every path a client names goes
through `SharedSet.check`, which never decodes anything: a path is a literal, `/`-separated,
relative name or it is denied.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import select
import stat
import subprocess
import threading
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pathspec

from canvasrelay.server.files.own_git import git, git_env

log = logging.getLogger(__name__)

MAX_PATH_CHARS = 1024
MAX_COMPONENT_BYTES = 255
GIT_TIMEOUT_S = 20.0

# Folders that are never shared, wherever they appear: VCS internals, canvas's own store,
# and the usual homes of keys and cloud/cluster credentials.
NEVER_DIRS = frozenset({".git", ".hg", ".svn", ".canvas", ".ssh", ".gnupg", ".aws", ".azure", ".kube"})

# Consecutive components that are never shared (credential files inside otherwise
# harmless folders).
NEVER_PAIRS = frozenset({(".docker", "config.json"), (".config", "gcloud"), (".config", "gh")})

# File (or folder) names that are never shared, as case-insensitive globs.
NEVER_NAMES = (
    ".env*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "id_xmss*",
    "*.ppk",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "*.tfstate",
    "*.tfstate.*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".yarnrc.yml",
    ".pgpass",
    ".htpasswd",
    ".git-credentials",
    "credentials",
    "credentials.*",
)
_NEVER_NAMES_RE = re.compile("|".join(fnmatch.translate(p) for p in NEVER_NAMES))

# Characters that render as a slash, a backslash or a dot; a missing path containing one is
# denied rather than offered as a file an agent might write.
_LOOKALIKES = frozenset("\u2215\u2044\u29f8\u2216\uff0f\uff3c\u2571\u2572\u3002\uff61\u2024\ufe52\uff0e")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}|%u[0-9A-Fa-f]{4}")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True, slots=True)
class Allowed:
    """In the set and a regular file on disk; `path` is the resolved absolute path."""

    path: Path


@dataclass(frozen=True, slots=True)
class Missing:
    """In the set by rule but not on disk (yet); `path` is where it would be."""

    path: Path


@dataclass(frozen=True, slots=True)
class Denied:
    reason: str


Resolution = Allowed | Missing | Denied


def _fold(name: str) -> str:
    # NFKC + casefold so that `.ENV` and fullwidth look-alikes of `id_rsa` hit the same rule; this only
    # ever widens what is denied.
    return unicodedata.normalize("NFKC", name).casefold()


def never_reason(parts: list[str] | tuple[str, ...]) -> str | None:
    """Why a relative path (as components) is never shared, or None."""
    folded = [_fold(p) for p in parts]
    for i, name in enumerate(folded):
        if name in NEVER_DIRS and i < len(folded) - 1:
            return f"never shared: inside {parts[i]}/"
        if name in NEVER_DIRS:
            return f"never shared: {parts[i]}"
        if _NEVER_NAMES_RE.match(name):
            return f"never shared: {parts[i]} looks like a secret"
        if i > 0 and (folded[i - 1], name) in NEVER_PAIRS:
            return f"never shared: {parts[i - 1]}/{parts[i]} holds credentials"
    return None


def syntax_reason(path: object) -> str | None:
    """Why a client-supplied path is not a plain relative name, or None."""
    if not isinstance(path, str):
        return "path must be a string"
    if path == "":
        return "empty path"
    if len(path) > MAX_PATH_CHARS:
        return "path too long"
    if "\x00" in path:
        return "NUL byte in path"
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in path):
        return "control character in path"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "path is not valid unicode"
    if "\\" in path:
        return "backslash in path"
    if path.startswith("/"):
        return "absolute path"
    if _DRIVE.match(path):
        return "drive path"
    for part in path.split("/"):
        if part == "":
            return "empty path component"
        if part in (".", ".."):
            return "traversal"
        if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
            return "path component too long"
    return None


def _plausible_new_name(parts: list[str]) -> bool:
    """Whether a path that does not exist may be reported as `missing`.

    Existing files are judged by the rules alone. A name nobody has written yet is only
    offered as "missing" when it is an ordinary name, so that encodings and look-alikes of
    traversal are denied instead of acknowledged.
    """
    for part in parts:
        if _PERCENT_ESCAPE.search(part) or _LOOKALIKES.intersection(part):
            return False
        if part.startswith(("..", "~")) or part != part.strip() or part.endswith("."):
            return False
        if unicodedata.normalize("NFKC", part) != part:
            return False
        if any(unicodedata.category(c) in ("Cf", "Co", "Cn", "Zl", "Zp") for c in part):
            return False
    return True


class _GitignoreMatcher:
    """Nested .gitignore semantics (deeper files win, an ignored folder hides its contents)."""

    def __init__(self, root: Path, extra: pathspec.PathSpec | None = None) -> None:
        self._root = root
        self._specs: dict[str, pathspec.PathSpec | None] = {}
        self._extra = extra

    def spec_for(self, folder: str) -> pathspec.PathSpec | None:
        if folder not in self._specs:
            self._specs[folder] = _load_spec(self._root / folder / ".gitignore")
        return self._specs[folder]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` itself matches (its ancestors are the caller's business)."""
        parts = rel.split("/")
        target = rel + "/" if is_dir else rel
        if self._extra is not None and self._extra.check_file(target).include:
            return True
        for depth in range(len(parts) - 1, -1, -1):
            spec = self.spec_for("/".join(parts[:depth]))
            if spec is None:
                continue
            result = spec.check_file("/".join(parts[depth:]) + ("/" if is_dir else ""))
            if result.include is not None:
                return result.include
        return False

    def ignored_with_ancestors(self, rel: str) -> bool:
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            if self.ignored("/".join(parts[:depth]), is_dir=True):
                return True
        return self.ignored(rel, is_dir=False)


def _load_spec(file: Path) -> pathspec.PathSpec | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


class _CheckIgnore:
    """One `git check-ignore --stdin` kept running: a path git did not list costs a pipe round trip,
    not a process. Answers are cached until `restart` (the rules changed); a git that fails or
    dies answers "ignored", so a doubt never shares a file."""

    CACHE_MAX = 8192

    def __init__(self, root: Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = b""
        self._cache: dict[str, bool] = {}
        self._lock = threading.Lock()

    def ignored(self, rel: str) -> bool:
        with self._lock:
            known = self._cache.get(rel)
            if known is None:
                known = self._ask(rel)
                if len(self._cache) >= self.CACHE_MAX:
                    self._cache.clear()
                self._cache[rel] = known
            return known

    def restart(self) -> None:
        """The rules may have changed: forget every answer, and let git read them afresh."""
        with self._lock:
            self._cache.clear()
            self._stop()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _ask(self, rel: str) -> bool:
        # The `./` prefix keeps git from reading a client's leading `:(magic)` as pathspec magic.
        try:
            proc = self._running()
            assert proc.stdin is not None
            proc.stdin.write(b"./" + rel.encode("utf-8") + b"\0")
            proc.stdin.flush()
            _source, _line, pattern, _path = self._fields(proc, 4)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            # E.g. a path inside a nested repository, which git refuses (and exits over).
            log.info("git check-ignore gave no answer for a path (%s); not sharing it", error)
            self._stop()
            return True
        # No pattern: nothing ignores it. A `!pattern` last matched it: explicitly not ignored.
        return bool(pattern) and not pattern.startswith(b"!")

    def _running(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._pending = b""
            self._proc = subprocess.Popen(
                git(self.root, "check-ignore", "--stdin", "-z", "--verbose", "--non-matching"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_env(GIT_FLUSH="1"),
            )
        return self._proc

    def _fields(self, proc: subprocess.Popen[bytes], count: int) -> list[bytes]:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + GIT_TIMEOUT_S
        while self._pending.count(b"\0") < count:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 65536) if ready else b""
            if not chunk:
                raise subprocess.SubprocessError("git check-ignore stopped answering")
            self._pending += chunk
        *fields, self._pending = self._pending.split(b"\0", count)
        return fields

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
        proc.terminate()
        try:
            proc.wait(timeout=GIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _git_toplevel(root: Path) -> bool:
    try:
        out = subprocess.run(
            git(root, "rev-parse", "--is-inside-work-tree"),
            env=git_env(),
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == b"true"


class SharedSet:
    """The files under `root` that may be shared, with a cached listing.

    `check` never trusts the cache for a "yes": a path outside the cached listing is judged
    by the rules live, so a file created since the last `refresh` is still answered right.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self._lock = threading.Lock()
        self._is_git = False
        """Set by `refresh`, which asks git again each time."""
        self._canvasignore: pathspec.PathSpec | None = None
        self._members: frozenset[str] = frozenset()
        self._files: list[str] = []
        self._check_ignore = _CheckIgnore(self.root)
        self._matcher = _GitignoreMatcher(self.root)
        """For a folder that is not a repository: its .gitignore files, read once per refresh."""
        self.refresh()

    def close(self) -> None:
        self._check_ignore.close()

    @property
    def is_git(self) -> bool:
        return self._is_git

    def paths(self) -> list[str]:
        """Shared files that exist now (as of the last refresh): sorted, relative, `/`-separated."""
        with self._lock:
            return list(self._files)

    def refresh(self) -> list[str]:
        """Recompute the set from disk and return `paths()`."""
        canvasignore = _load_spec(self.root / ".canvasignore")
        self._is_git = _git_toplevel(self.root)
        candidates = self._git_candidates() if self._is_git else self._walk_candidates(canvasignore)
        members = {
            rel
            for rel in candidates
            if syntax_reason(rel) is None
            and never_reason(rel.split("/")) is None
            and not _canvas_ignored(canvasignore, rel)
        }
        with self._lock:
            self._canvasignore = canvasignore
            self._members = frozenset(members)
            self._matcher = _GitignoreMatcher(self.root)
        self._check_ignore.restart()
        real_dirs: dict[str, str] = {}
        files = sorted(rel for rel in members if self._is_plain_file(rel, real_dirs))
        with self._lock:
            self._files = files
        return list(files)

    def check(self, path: str) -> Resolution:
        """Judge a client-supplied path; see the ADR for every rule."""
        reason = syntax_reason(path)
        if reason is not None:
            return Denied(reason)
        parts = path.split("/")
        reason = self._rules_reason(path)
        if reason is not None:
            return Denied(reason)

        real = os.path.realpath(os.path.join(self.root, *parts))
        if real != self._root_str and not real.startswith(self._root_str + os.sep):
            return Denied("resolves outside the shared folder")
        real_rel = os.path.relpath(real, self.root).replace(os.sep, "/")
        if real_rel != path:
            reason = self._rules_reason(real_rel)
            if reason is not None:
                return Denied(f"link target not shared ({reason})")

        try:
            st = os.lstat(real)
        except FileNotFoundError:
            if not self._parent_is_dir(real) or not _plausible_new_name(parts):
                return Denied("no such file")
            return Missing(Path(real))
        except OSError:
            return Denied("not a file")
        if not stat.S_ISREG(st.st_mode):
            return Denied("not a regular file")
        return Allowed(Path(real))

    def _is_plain_file(self, rel: str, real_dirs: dict[str, str]) -> bool:
        """`check(rel)` is Allowed, with the common case (no links) kept to one lstat."""
        folder, _, _ = rel.rpartition("/")
        expected = os.path.join(self._root_str, folder) if folder else self._root_str
        if folder not in real_dirs:
            real_dirs[folder] = os.path.realpath(expected)
        try:
            st = os.lstat(os.path.join(self._root_str, rel))
        except OSError:
            return False
        if real_dirs[folder] == expected and stat.S_ISREG(st.st_mode):
            return True
        return isinstance(self.check(rel), Allowed)

    def _rules_reason(self, rel: str) -> str | None:
        reason = never_reason(rel.split("/"))
        if reason is not None:
            return reason
        with self._lock:
            canvasignore = self._canvasignore
            listed = rel in self._members
        if _canvas_ignored(canvasignore, rel):
            return "excluded by .canvasignore"
        if not listed and self._ignored_by_rules(rel):
            return "not in the shared set"
        return None

    @property
    def _root_str(self) -> str:
        return str(self.root)

    def _parent_is_dir(self, real: str) -> bool:
        parent = os.path.dirname(real)
        inside = parent == self._root_str or parent.startswith(self._root_str + os.sep)
        return inside and os.path.isdir(parent)

    def _ignored_by_rules(self, rel: str) -> bool:
        """Only reached for paths the listing does not hold (names nobody has written yet, mostly)."""
        if not self._is_git:
            with self._lock:
                matcher = self._matcher
            return matcher.ignored_with_ancestors(rel)
        return self._check_ignore.ignored(rel)

    def _git_candidates(self) -> set[str]:
        try:
            out = subprocess.run(
                git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"),
                env=git_env(),
                capture_output=True,
                timeout=GIT_TIMEOUT_S,
                check=True,
            )
        except (OSError, subprocess.SubprocessError) as error:
            # Fail closed: a repository git cannot read shares nothing until it can.
            log.warning("git ls-files failed in %s: %s", self.root, error)
            return set()
        # Nested repositories show up as `dir/`; their contents are not descended.
        return {os.fsdecode(raw) for raw in out.stdout.split(b"\0") if raw and not raw.endswith(b"/")}

    def _walk_candidates(self, canvasignore: pathspec.PathSpec | None) -> set[str]:
        matcher = _GitignoreMatcher(self.root, extra=canvasignore)
        found: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(self.root):
            base = os.path.relpath(dirpath, self.root).replace(os.sep, "/")
            prefix = "" if base == "." else base + "/"
            # Pruning here is what keeps a tree with node_modules/ or a venv fast.
            dirnames[:] = [
                d for d in dirnames if never_reason([d]) is None and not matcher.ignored(prefix + d, is_dir=True)
            ]
            for name in filenames:
                rel = prefix + name
                if not matcher.ignored(rel, is_dir=False):
                    found.add(rel)
        return found


def _canvas_ignored(spec: pathspec.PathSpec | None, rel: str) -> bool:
    if spec is None:
        return False
    parts = rel.split("/")
    if any(spec.check_file("/".join(parts[:depth]) + "/").include for depth in range(1, len(parts))):
        return True
    return bool(spec.check_file(rel).include)
