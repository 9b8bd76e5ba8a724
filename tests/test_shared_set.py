from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canvasrelay.server.files.reader import read_shared_file
from canvasrelay.server.files.shared_set import Allowed, Denied, Missing, SharedSet

pytestmark = pytest.mark.timeout(120)

ATTACKS: list[str] = json.loads((Path(__file__).parent / "corpus" / "path_attacks.json").read_text())

SECRET_FILES = [
    ".env",
    ".env.local",
    ".env.production",
    "sub/.git/config",
    "deploy/key.pem",
    "deploy/server.key",
    ".ssh/id_rsa",
    "home/.ssh/id_ed25519",
    "id_rsa",
    "id_ed25519.pub",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    "src/credentials",
    ".aws/credentials",
    ".docker/config.json",
    ".kube/config",
    "cert.p12",
    ".git-credentials",
    ".htpasswd",
    ".canvas/secrets",
    "ignored.log",
    "build/out.txt",
    "private/notes.txt",
]
PUBLIC_FILES = {"README.md": "hello readme\n", "src/app.py": "print('hi')\n", "docs/guide.md": "# guide\n"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def new_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(root)
    return root


def init_repo(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    git(root, "config", "commit.gpgsign", "false")


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_tree(base: Path, use_git: bool) -> Path:
    """A project folder full of secrets and links out, next to an outside folder."""
    outside = base / "outside"
    write(outside, "secret.txt", "SECRET outside\n")
    root = base / "project"
    root.mkdir()
    if use_git:
        init_repo(root)
        write(root, ".git/info/exclude", "")
    for rel, text in PUBLIC_FILES.items():
        write(root, rel, text)
    for rel in SECRET_FILES:
        write(root, rel, f"SECRET {rel}\n")
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, ".canvasignore", "private/\n")
    links = {
        "link_out": outside / "secret.txt",
        "link_etc": Path("/etc/passwd"),
        "link_dir_out": outside,
        "link_env": Path(".env"),
        "link_up": Path(".."),
        "link_canvas": Path(".canvas"),
        "link_git_config": Path("sub/.git/config"),
        "loop_a": Path("loop_b"),
        "loop_b": Path("loop_a"),
        "src/link_key": Path("../deploy/key.pem"),
        "link_root": Path("."),
        "link_abs_home": Path(os.path.expanduser("~")),
        "link_ignored": Path("ignored.log"),
        "link_readme": Path("README.md"),
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    os.mkfifo(root / "fifo")
    if use_git:
        git(root, "add", "README.md", "src/app.py", ".gitignore")
        git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture(scope="module", params=["git", "plain"])
def tree(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> SharedSet:
    base = tmp_path_factory.mktemp(request.param)
    return SharedSet(make_tree(base, use_git=request.param == "git"))


def test_the_shared_set_is_exactly_the_public_files(tree: SharedSet) -> None:
    expected = sorted([*PUBLIC_FILES, ".canvasignore", ".gitignore", "link_readme"])
    assert tree.paths() == expected


def test_public_files_read_as_text(tree: SharedSet) -> None:
    for rel, text in PUBLIC_FILES.items():
        assert read_shared_file(tree, rel) == {"kind": "text", "text": text, "size": len(text)}
    result = tree.check("link_readme")
    assert isinstance(result, Allowed) and result.path == tree.root / "README.md"


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_is_denied_with_nothing_leaked(tree: SharedSet, attack: str) -> None:
    assert isinstance(tree.check(attack), Denied), attack
    result = read_shared_file(tree, attack)
    assert result["kind"] == "denied" and set(result) == {"kind", "reason"}
    assert "SECRET" not in json.dumps(result)


def test_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 200


def test_missing_is_judged_by_the_rules(tree: SharedSet) -> None:
    assert tree.check("new_module.py") == Missing(tree.root / "new_module.py")
    assert isinstance(tree.check("src/new.py"), Missing)
    assert read_shared_file(tree, "src/new.py") == {"kind": "missing"}
    assert isinstance(tree.check("new.log"), Denied), "ignored by .gitignore"
    assert isinstance(tree.check("build/new.txt"), Denied), "inside an ignored folder"
    assert isinstance(tree.check("private/new.txt"), Denied), "excluded by .canvasignore"
    assert isinstance(tree.check("no/such/folder.py"), Denied), "parent folder must exist"
    assert isinstance(tree.check(".env.new"), Denied)


SEGMENTS = [
    "..",
    ".",
    "",
    "src",
    "app.py",
    "README.md",
    ".env",
    "deploy",
    "key.pem",
    ".git",
    "config",
    "sub",
    "link_out",
    "link_up",
    "link_root",
    "link_dir_out",
    "secret.txt",
    "outside",
    "%2e%2e",
    "\uff0e\uff0e",
    "etc",
    "passwd",
    "ignored.log",
    "private",
    "notes.txt",
    ".canvas",
    "secrets",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6).map("/".join),
        st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("\\".join),
        st.text(max_size=40),
        st.text(alphabet="./\\%2eE\x00~:a-_", max_size=30),
    )
)
def test_no_path_yields_content_outside_the_set(tree: SharedSet, path: str) -> None:
    result = read_shared_file(tree, path)
    if result["kind"] in ("text", "binary", "too-large"):
        resolved = tree.check(path)
        assert isinstance(resolved, Allowed)
        real_rel = resolved.path.relative_to(tree.root).as_posix()
        assert real_rel in tree.paths()
    assert "SECRET" not in json.dumps(result)


def test_git_lists_tracked_and_untracked_but_not_ignored(tmp_path: Path) -> None:
    root = new_repo(tmp_path)
    write(root, ".gitignore", "*.tmp\nnode_modules/\n")
    write(root, "tracked.py", "x")
    write(root, "forced.tmp", "x")
    git(root, "add", "tracked.py", ".gitignore")
    git(root, "add", "-f", "forced.tmp")
    git(root, "commit", "-q", "-m", "init")
    write(root, "untracked.py", "x")
    write(root, "scratch.tmp", "x")
    write(root, "node_modules/dep/index.js", "x")
    write(root, "nested/.gitignore", "*.gen\n!keep.gen\n")
    write(root, "nested/a.gen", "x")
    write(root, "nested/keep.gen", "x")
    write(root, ".canvasignore", "untracked.py\n")
    shared = SharedSet(root)
    assert shared.is_git
    assert shared.paths() == [
        ".canvasignore",
        ".gitignore",
        "forced.tmp",
        "nested/.gitignore",
        "nested/keep.gen",
        "tracked.py",
    ]
    assert isinstance(shared.check("scratch.tmp"), Denied)
    assert isinstance(shared.check("untracked.py"), Denied)
    assert isinstance(shared.check(".git/HEAD"), Denied)
    (root / "tracked.py").unlink()
    assert isinstance(shared.check("tracked.py"), Missing), "tracked, deleted, about to be rewritten"


def git_children(root: Path) -> list[str]:
    """This process's `git check-ignore` children for `root` (other tests' sets may still hold theirs)."""
    wanted = (b"check-ignore", str(root).encode())
    return [
        pid
        for task in Path("/proc/self/task").glob("*/children")
        for pid in task.read_text().split()
        if Path(f"/proc/{pid}/cmdline").exists() and all(w in Path(f"/proc/{pid}/cmdline").read_bytes() for w in wanted)
    ]


def test_names_git_did_not_list_are_judged_by_one_git_process_and_fresh_rules(tmp_path: Path) -> None:
    root = new_repo(tmp_path)
    write(root, ".gitignore", "build/\n*.log\n!keep.log\n")
    write(root, "src/a.py", "x")
    shared = SharedSet(root)
    judged = {
        "build/new.txt": Denied,
        "src/new.log": Denied,
        "src/keep.log": Missing,
        "src/new.py": Missing,
    }
    for _ in range(200):
        for path, kind in judged.items():
            assert isinstance(shared.check(path), kind), path
        assert len(git_children(root)) <= 1
    write(root, ".gitignore", "*.py\n")
    shared.refresh()
    assert isinstance(shared.check("src/new.py"), Denied), "the rules changed"
    assert isinstance(shared.check("src/new.log"), Missing)
    shared.close()
    assert git_children(root) == []


def test_subfolder_of_a_repo(tmp_path: Path) -> None:
    init_repo(tmp_path)
    write(tmp_path, "top.txt", "x")
    write(tmp_path, "app/main.py", "x")
    shared = SharedSet(tmp_path / "app")
    assert shared.paths() == ["main.py"]
    assert isinstance(shared.check("../top.txt"), Denied)


def test_plain_folder_honours_nested_gitignore(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen\ndist/\n")
    write(tmp_path, "a.gen", "x")
    write(tmp_path, "dist/bundle.js", "x")
    write(tmp_path, "pkg/.gitignore", "!keep.gen\nlocal/\n")
    write(tmp_path, "pkg/keep.gen", "x")
    write(tmp_path, "pkg/other.gen", "x")
    write(tmp_path, "pkg/local/x.py", "x")
    write(tmp_path, "pkg/mod.py", "x")
    write(tmp_path, ".canvasignore", "pkg/mod.py\n")
    shared = SharedSet(tmp_path)
    assert not shared.is_git
    assert shared.paths() == [".canvasignore", ".gitignore", "pkg/.gitignore", "pkg/keep.gen"]
    assert isinstance(shared.check("pkg/local/new.py"), Denied)
    assert isinstance(shared.check("pkg/new.gen"), Denied)


def test_refresh_follows_the_disk(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "x")
    shared = SharedSet(tmp_path)
    assert shared.paths() == ["a.py"]
    write(tmp_path, "b.py", "x")
    assert isinstance(shared.check("b.py"), Allowed), "judged live before any refresh"
    assert shared.refresh() == ["a.py", "b.py"]
    write(tmp_path, ".canvasignore", "b.py\n")
    assert shared.refresh() == [".canvasignore", "a.py"]


def test_text_binary_too_large(tmp_path: Path) -> None:
    write(tmp_path, "u.txt", "héllo")
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "big.txt").write_bytes(b"a" * (1024 * 1024 + 1))
    (tmp_path / "edge.txt").write_bytes(b"a" * (1024 * 1024))
    shared = SharedSet(tmp_path)
    assert read_shared_file(shared, "u.txt") == {"kind": "text", "text": "héllo", "size": 6}
    assert read_shared_file(shared, "bin.dat") == {"kind": "binary", "size": 3}
    assert read_shared_file(shared, "latin1.txt") == {"kind": "binary", "size": 4}
    assert read_shared_file(shared, "big.txt") == {"kind": "too-large", "size": 1024 * 1024 + 1}
    assert read_shared_file(shared, "edge.txt")["kind"] == "text"


def test_ten_thousand_files_stay_fast(tmp_path: Path) -> None:
    init_repo(tmp_path)
    for i in range(100):
        folder = tmp_path / f"pkg{i}"
        folder.mkdir()
        for j in range(100):
            (folder / f"m{j}.py").write_text("x")
    git(tmp_path, "add", ".")
    start = time.perf_counter()
    shared = SharedSet(tmp_path)
    assert len(shared.paths()) == 10_000
    assert time.perf_counter() - start < 3.0
