from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.net import public_relays
from canvasrelay.page import bundle as page_bundle
from tests.agent_support import serving
from tests.relay_pages import Loop
from tests.services import Coturn, NostrRelay, RedisServer, SignalInstance
from tests.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MISSING,
    SERVER_OUTPUT_CHARS,
    STARTED,
    HostClient,
    InProcessServer,
    ServerProcess,
    ServerThread,
    missing,
    require,
)

_RUN_TMP = "CANVAS_TEST_RUN_TMP"
"""The run's own temporary folder, named in the environment so xdist's workers inherit it."""
_RUN_HOME = "CANVAS_TEST_HOME"


def pytest_configure(config: pytest.Config) -> None:
    """Everything the run writes to a temporary folder (pytest's tmp_path, Chromium's profiles,
    `canvas serve` and the agents it starts) goes under one folder of this run's, removed at its
    end: a run leaves nothing in /tmp. `--basetemp DIR` keeps the files, in DIR."""
    if not os.environ.get(_RUN_TMP) and not config.option.basetemp:
        folder = tempfile.mkdtemp(prefix="canvas-tests-")
        os.chmod(folder, 0o755)  # as /tmp lets them: tests that run canvas as another user reach their folders
        os.environ[_RUN_TMP] = os.environ["TMPDIR"] = tempfile.tempdir = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    if not os.environ.get(_RUN_HOME):
        _own_home(config)
    # No test reaches a public relay or the published guest page: those that use them start their own and name them.
    os.environ.setdefault(public_relays.ENV, "")
    os.environ.setdefault(page_bundle.ENV, "")


def _own_home(config: pytest.Config) -> None:
    """The shells the run starts read a home of the run's own: the user's start-up files stay out
    (one that stalls, as a version manager's rehash waiting on a lock a killed shell left, stalls
    every terminal test) and so do the user's rules, history and identities."""
    home = tempfile.mkdtemp(prefix="canvas-home-")
    os.chmod(home, 0o755)
    gitconfig = Path.home() / ".gitconfig"
    if gitconfig.is_file():
        shutil.copy(gitconfig, home)
    os.environ[_RUN_HOME] = os.environ["HOME"] = home
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per thing a test lacked, with how to install it (CI=1 fails those tests instead)."""
    lacking: dict[str, str] = {}
    for outcome in ("skipped", "failed", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            text = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr or "")
            for match in MISSING.finditer(text):
                lacking.setdefault(match["thing"], match["install"].strip())
    if lacking:
        terminalreporter.section("missing here: tests that need these were skipped", yellow=True)
        for thing, install in sorted(lacking.items()):
            terminalreporter.write_line(f"{thing}: {install}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    STARTED.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failing test's report ends with what each `canvas serve` it started printed last: its
    warnings are often the reason."""
    report = yield
    if report.failed:
        for number, server in enumerate(STARTED, 1):
            tail = "".join(server.output)[-SERVER_OUTPUT_CHARS:]
            report.sections.append((f"canvas serve {number} printed", tail or "(nothing)"))
    return report


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# a project\n")
    return root


@pytest.fixture
def server(project: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """The project served: in the test's process, or for a test marked `serve_subprocess` as a
    real `canvas serve` subprocess."""
    kind = ServerProcess if request.node.get_closest_marker("serve_subprocess") else ServerThread
    served = kind(project).start()
    yield served
    served.stop()


@pytest.fixture
async def host(server: ServerProcess) -> AsyncIterator[HostClient]:
    client = await HostClient.connect(server)
    yield client
    await client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one module's sync tests. Not session-wide: while Playwright's sync API runs it
    holds an event loop on the main thread, and every async test after it would fail."""
    if not Path(CHROMIUM).exists():
        missing("chromium", "apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
async def served(project: Path) -> AsyncIterator[InProcessServer]:
    """The project served in the test's process (a module may serve it its own way)."""
    async with serving(project) as server:
        yield server


@pytest.fixture
async def host_client(served: InProcessServer) -> AsyncIterator[HostClient]:
    """A host socket on the module's own in-process `served` server."""
    client = await HostClient.connect(served)
    yield client
    await client.close()


@dataclass
class Cluster:
    """Two `canvas signal --redis` instances and their Redis, all real processes on loopback."""

    redis: RedisServer
    a: SignalInstance
    b: SignalInstance

    @classmethod
    def start(cls, *extra: str) -> Cluster:
        require("redis-server", "redis-server")
        redis = RedisServer().start()
        a = SignalInstance(extra=["--redis", redis.url, *extra]).start()
        b = SignalInstance(extra=["--redis", redis.url, *extra]).start()
        return cls(redis, a, b)

    def stop(self) -> None:
        for service in (self.a, self.b, self.redis):
            service.stop()


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """Shared by every test that does not break it; a test that kills a part makes its own."""
    running = Cluster.start()
    yield running
    running.stop()


@pytest.fixture
def own_cluster() -> Iterator[Callable[..., Cluster]]:
    """A cluster for one test to break: restart its Redis, kill an instance."""
    made: list[Cluster] = []

    def make(*extra: str) -> Cluster:
        made.append(Cluster.start(*extra))
        return made[-1]

    yield make
    for running in made:
        running.stop()


@pytest.fixture
def loop() -> Iterator[Loop]:
    running = Loop()
    yield running
    running.close()


@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NostrRelay]:
    running = NostrRelay(workdir=tmp_path_factory.mktemp("relay")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def coturn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Coturn]:
    """A real coturn for one module's TURN tests."""
    require("turnserver", "coturn")
    relay = Coturn(workdir=tmp_path_factory.mktemp("coturn")).start()
    yield relay
    relay.stop()


@pytest.fixture(scope="module")
def turn_cluster(coturn: Coturn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A cluster whose instances hand out credentials for that coturn, its secret in a 0600 file."""
    secret_file = tmp_path_factory.mktemp("secret") / "turn-secret"
    secret_file.write_text(coturn.secret + "\n")
    secret_file.chmod(0o600)
    running = Cluster.start("--turn-secret-file", str(secret_file), "--turn-url", coturn.url)
    yield running
    running.stop()
