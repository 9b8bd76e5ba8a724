"""`canvas serve`: the aiohttp application around one Room, and the composition root.

`CanvasServer` builds every feature with what it needs, in dependency order (rules and the
board before the agents that use them), starts them before the port opens, and
`CanvasServer.stop` ends every child process and flushes the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import aiohttp
from aiohttp import web

from canvasrelay.core.guests import Guests
from canvasrelay.core.invites import Invite
from canvasrelay.core.peer import RoomInfo
from canvasrelay.core.people_room import PeopleRoom
from canvasrelay.core.room import Room
from canvasrelay.core.shared_files import SharedFiles
from canvasrelay.core.terminals import TerminalRoom
from canvasrelay.net import public_relays, relay_upkeep
from canvasrelay.net.bounded_site import BoundedSite
from canvasrelay.net.http_refusals import one_line_refusals
from canvasrelay.net.nostr_rendezvous import RelayListening
from canvasrelay.net.peer_connection import chosen
from canvasrelay.net.tasks import cancelled
from canvasrelay.net.turn_provider import ProviderTurn
from canvasrelay.page import bundle as page_bundle
from canvasrelay.page.assets import add_static_routes
from canvasrelay.page.bundle import WEB_DIST, PageCheck
from canvasrelay.page.policy import own_sockets, rendezvous_sources, security_headers, socket_sources
from canvasrelay.protocol.people import LinkReach
from canvasrelay.server import canvas_dir, room_secrets
from canvasrelay.server.agents.catalog import AgentSpec, discover, process_limits
from canvasrelay.server.agents.host import AgentHost
from canvasrelay.server.agents.rule_book import RuleBook, load_user_rules, project_rules
from canvasrelay.server.board.host import BoardHost, board_bounds
from canvasrelay.server.board.log import BOARD_LOG
from canvasrelay.server.board.mcp import BoardMcp
from canvasrelay.server.canvas_dir import FolderLock
from canvasrelay.server.config import load_config
from canvasrelay.server.deferred_imports import AGENT_MODULES, DeferredImports
from canvasrelay.server.files.host import FileHost
from canvasrelay.server.guests.hub import Hub
from canvasrelay.server.guests.people_store import PeopleStore
from canvasrelay.server.http.api import ApiServices, mount_api
from canvasrelay.server.http.lan import link_hosts, url_host
from canvasrelay.server.recording.room import RoomRecording
from canvasrelay.server.recording.segments import RECORDING_DIR, Recorder
from canvasrelay.server.recording.service import Replays
from canvasrelay.server.runtime import Runtime
from canvasrelay.server.store import Store, open_store
from canvasrelay.server.terminals.host import TerminalHost
from canvasrelay.server.terminals.tmux import TmuxServer, tmux_executable
from canvasrelay.server.transports.websocket import host_socket
from canvasrelay.signal.rendezvous import Rendezvous
from canvasrelay.signal.rendezvous import add_routes as add_rendezvous
from canvasrelay.signal.turn_credentials import TurnConfig

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 1.0
"""Requests still running when the server stops (an event stream, an agent's MCP stream) get this long."""


@dataclass
class ServeOptions:
    root: Path
    host: str = "127.0.0.1"
    port: int = 0
    new_room: bool = False
    extra_origins: set[str] = field(default_factory=set)
    signal_url: str | None = None
    """An outside rendezvous (`canvas signal`); by default this server's own `/signal`."""
    base_url: str | None = None
    """Where the room link points guests (the guest page), as the host named it (`--base-url`)."""
    published_page: str | None = field(default_factory=page_bundle.default_base)
    """The published guest page links point at when `base_url` is not given, once the host has
    checked it is this canvas's own and found relays to reach guests there; None: this server."""
    ice_servers: list[str] = field(default_factory=list)
    relay_only: bool = False
    """Hub and guests connect only through TURN relays (`--relay-only`; the room link says so too)."""
    turn: TurnConfig | None = None
    turn_provider: ProviderTurn | None = None
    """A provider's TURN (`--cloudflare-turn-key`, `--cloudflare-turn-token-file`), used as `turn` is."""
    """A TURN server and its secret (`--turn-url`, `--turn-secret-file`): the hub mints short-lived
    credentials for itself and for each guest, inside the sealed reply; no guest holds the secret."""
    relays: list[str] | None = field(default_factory=public_relays.from_env)
    """Public Nostr relays to listen on as well: None for some of `relay_candidates` (probed at
    start, replaced for new links when one fails later), [] for none (`--lan-only`)."""
    relay_candidates: list[str] = field(default_factory=public_relays.urls)
    """The curated relays (`net/public_relays.py`) the choice is made among."""
    relay_check_s: float = relay_upkeep.CHECK_S
    relay_down_s: float = relay_upkeep.DOWN_S


class CanvasServer:
    def __init__(self, options: ServeOptions) -> None:
        self.options = options
        self.root = options.root.resolve()
        self.canvas_dir = room_secrets.ensure_private_dir(self.root / ".canvas")
        # Before anything reads or rotates the folder's state: it may belong to a running server.
        self.lock = FolderLock(self.canvas_dir)
        try:
            canvas_dir.tighten(self.canvas_dir)
            canvas_dir.ignore_itself(self.canvas_dir)
            self.secrets = room_secrets.load_or_create(self.canvas_dir, rotate=options.new_room)
            self.config = load_config(self.canvas_dir)
            self.agent_specs: dict[str, AgentSpec] = discover(self.config)
            bounds = board_bounds(self.config)
            self.store: Store = open_store(self.canvas_dir)
        except BaseException:
            self.lock.release()
            raise
        self.room = Room(
            RoomInfo(
                room_id=self.secrets.room_id,
                host_public_key=self.secrets.host_public_key,
                cwd=str(self.root),
            )
        )
        self.room.agents = [spec.info() for spec in self.agent_specs.values()]
        self.runtime = Runtime(self.room, commit=self.store.commit)
        self.people_store = PeopleStore(self.canvas_dir, self.secrets.room_key, fresh=options.new_room)
        self.invites = self.people_store.invites
        self.guests = Guests(
            self.room,
            invites=self.invites,
            identities=self.people_store.identities,
            request_prefix=f"a{secrets.token_hex(3)}-",
        )
        self.people_store.restore_requests(self.guests)
        self.audit = self.people_store.audit
        self.audit.names = self._guest_name
        self.audit.things = self._thing_name
        self.audit.agents = self._agent_label
        self.people = PeopleRoom(self.room, self.guests, self.invites, self.audit, self.secrets.host_public_key)
        self.hub: Hub | None = None
        self.relay_urls: list[str] = []
        self.page_check: PageCheck | None = None
        """What the host found at the published guest page, once it looked."""
        self._page: str | None = options.base_url
        """The guest page links point at, when not this server's own."""
        """The public relays the hub listens on and the room link names, once chosen."""
        self._relays_task: asyncio.Task[None] | None = None
        self._upkeep_task: asyncio.Task[None] | None = None
        self._relay_session: aiohttp.ClientSession | None = None
        self.app = web.Application(middlewares=[security_headers])
        one_line_refusals()
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.listening = asyncio.Event()
        """Set once the port is bound (and so `port` known)."""
        self.rules = RuleBook(self.store, self.root, load_user_rules(), project_rules(self.config))
        self.board = BoardHost(self.room, self.runtime, self.canvas_dir / BOARD_LOG, bounds)
        self.deferred = DeferredImports(AGENT_MODULES)
        self.webrtc_library = chosen()
        self.webrtc = DeferredImports(self.webrtc_library.modules)
        self.board_mcp = BoardMcp(self.board.tools, self.deferred)
        self.board_mcp.install(self.app)
        self.agents = AgentHost(
            self.runtime,
            self.store,
            self.agent_specs,
            self.rules,
            self.board_mcp,
            self.root,
            self._own_url,
            self.deferred,
            process_limits(self.config),
        )
        self.people.names_prompts = self.agents.core.names_prompts
        self.audit.permissions = self.agents.core.permission_words
        self.board.tools.edited_by = self.audit.agent_edited_board
        tmux = tmux_executable()
        self.terminals = TerminalHost(
            self.runtime,
            TerminalRoom(self.room, self.guests),
            self.root,
            self.canvas_dir,
            TmuxServer(self.canvas_dir, tmux) if tmux else None,
        )
        self.files = FileHost(self.runtime, SharedFiles(self.room), self.root)
        self.recorder = Recorder(self.canvas_dir / RECORDING_DIR, self.config.recording)
        self.recording = RoomRecording(self.runtime, self.recorder, self.board.tools.board.state, self.terminals)
        self.replays = Replays(
            self.canvas_dir,
            self.recorder,
            self.board.tools,
            self.audit,
            self.store.sessions,
            lambda: dict(self.recording.names),
        )
        self._compose()
        mount_api(
            self.app,
            ApiServices(
                attempt=self.room.attempt,
                run=self.runtime.run,
                on_broadcast=self.runtime.on_broadcast,
                on_close=self.runtime.on_close,
                store=self.store,
                agent_list=lambda: self.room.agents,
                agents=self.agents,
                rules=self.rules,
                guests=self.guests,
                people=self.people,
                audit=self.audit,
                board=lambda: self.board.tools.board,
                token_matches=self.secrets.token_matches,
                invite_link=self.invite_link,
                allowed_origins=lambda: self.own_origins() | set(self.config.api.cors_origins),
                webrtc=self.webrtc_library.describe(),
                replays=self.replays,
            ),
        )

    def _compose(self) -> None:
        """Every feature of the room and every adapter carrying out their effects, in one place: a
        frame's type names its feature's module, an effect's its adapter's."""
        for feature in (
            self.guests.feature(),
            self.people.feature(),
            self.board.board_room.feature(),
            self.agents.core.feature(),
            self.terminals.room_side.feature(),
            self.files.room_side.feature(),
        ):
            self.room.install(feature)
        for adapter in (self.board.adapter(), self.agents.adapter(), self.terminals.adapter(), self.files.adapter()):
            self.runtime.install(adapter)

    def _guest_name(self, guest_id: str) -> str:
        identity = self.guests.identities.get(guest_id)
        return identity.name if identity is not None else guest_id

    def _thing_name(self, ref: str) -> str:
        """A terminal's or an agent session's name on the board, or "" for what is not there."""
        terminal = self.terminals.room_side.terminals.get(ref)
        if terminal is not None:
            return terminal.name
        session = self.agents.core.sessions.get(ref)
        return session.title if session is not None else ""

    def _agent_label(self, agent_id: str) -> str:
        return next((agent.label for agent in self.room.agents if agent.id == agent_id), "")

    async def _own_url(self) -> str:
        await self.listening.wait()
        return f"http://127.0.0.1:{self.port}"

    def own_origins(self) -> set[str]:
        names = {self.options.host, *self.link_hosts, "127.0.0.1", "localhost"}
        return {f"http://{url_host(name)}:{self.port}" for name in names} | self.options.extra_origins

    def _routes(self) -> None:
        origins = _LateOrigins(self)
        self.app.router.add_get("/ws", host_socket(self.runtime, self.secrets.token_matches, origins))
        if self.options.signal_url is None:
            pages = [page for page in (self.options.base_url, self.options.published_page) if page]
            add_rendezvous(self.app, Rendezvous(origins=[*pages, *self.options.extra_origins]))
        add_static_routes(self.app, WEB_DIST, self._page_connects)

    def _page_connects(self, request: web.Request) -> list[str]:
        """The host page reaches this server; a guest page served here, the rendezvous and relays its link names."""
        listened = list(self.hub.relays.links) if self.hub is not None and self.hub.relays is not None else []
        relays = socket_sources(list(dict.fromkeys([*self.relay_urls, *listened])))
        return [*own_sockets(request), *rendezvous_sources(self.options.signal_url), *relays]

    async def start(self) -> int:
        self.recorder.start()
        await self.agents.start()
        await self.files.start()
        await self.terminals.start()
        self._routes()
        self.runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT)
        await self.runner.setup()
        site = BoundedSite(self.runner, self.options.host, self.options.port)
        await site.start()
        self.port = int(self.runner.addresses[0][1])
        self.lock.serving_on(self.port)
        self.listening.set()
        self.people.link_tail = self._link_tail()
        self.people_store.start()
        signal = self.options.signal_url or f"ws://{self._link_host()}:{self.port}/signal"
        self.hub = Hub(
            self.runtime,
            self.guests,
            self.secrets,
            signal,
            self.webrtc,
            self.webrtc_library,
            ice_urls=self.options.ice_servers,
            relay_only=self.options.relay_only,
            turn_config=self.options.turn,
            turn_provider=self.options.turn_provider,
        )
        await self.hub.start()
        self.deferred.start()
        self.webrtc.start()
        self._relays_task = asyncio.get_running_loop().create_task(self._reach_out())
        return self.port

    async def relays_chosen(self, timeout: float) -> list[str]:
        """The relays the room link names, once chosen (or those chosen by `timeout`)."""
        if self._relays_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._relays_task), timeout)
        return self.relay_urls

    async def _reach_out(self) -> None:
        """In the background (the host link prints at once): choose the relays and listen there, and
        check the published guest page; then the links say where guests go, and the hosts are told."""
        wanted = self.options.relays
        if wanted != [] and self.hub is not None:
            self._relay_session = aiohttp.ClientSession()
            published = self.options.published_page if self.options.base_url is None else None
            check = page_bundle.check_copy(published, self._relay_session) if published else None
            relays, self.page_check = await asyncio.gather(self._reach_relays(wanted), _maybe(check))
            if published and relays and self.page_check is not None and self.page_check.worth_pointing_at:
                self._page = published
        await self._relays_changed(self.relay_urls)

    async def _reach_relays(self, wanted: list[str] | None) -> list[str]:
        assert self.hub is not None and self._relay_session is not None
        candidates = self.options.relay_candidates
        urls = await public_relays.choose(candidates, self._relay_session) if wanted is None else wanted
        if not urls:
            log.info("no public relay answered")
            return []
        listening = RelayListening(self._relay_session, self.hub.heard_on_relays)
        await listening.use(urls)
        await self.hub.use_relays(listening)
        self.relay_urls = urls
        if wanted is None:
            upkeep = relay_upkeep.RelayUpkeep(
                listening,
                self._relay_session,
                urls,
                candidates,
                self._relays_changed,
                self.options.relay_check_s,
                self.options.relay_down_s,
            )
            self._upkeep_task = asyncio.get_running_loop().create_task(upkeep.run())
        return urls

    async def _relays_changed(self, urls: list[str]) -> None:
        """A relay replaced for new links: the links, and the hosts, say so."""
        self.relay_urls = urls
        self.people.link_tail = self._link_tail()
        self.people.reach = self._reach()
        await self.runtime.run([self.people.to_hosts()])

    @property
    def links_leave(self) -> bool:
        """Links point at a guest page served elsewhere, not at this server."""
        return self._page is not None

    def _reach(self) -> LinkReach:
        own = self._own_page()
        nearby = own if self._page is not None and self.options.host not in LOOPBACK else None
        anywhere = self.links_leave and bool(self.relay_urls or self.options.signal_url)
        return LinkReach(page=self._base() + "/", relays=self.relay_urls, nearby_page=nearby, anywhere=anywhere)

    @property
    def host_link(self) -> str:
        return f"http://{self._link_host()}:{self.port}/#token={self.secrets.token}"

    @property
    def room_link(self) -> str:
        """The open room link, whether or not it is on."""
        return self.invite_link(self.invites.open)

    def invite_link(self, invite: Invite) -> str:
        return f"{self._base()}/#{self.people.fragment(invite)}"

    def _link_tail(self) -> str:
        extra = {
            "signal": self.options.signal_url or "",
            "ice": ",".join(self.options.ice_servers),
            "relay": "1" if self.options.relay_only else "",
            "nostr": ",".join(self.relay_urls),
        }
        return "".join(f"&{k}={quote(v, safe=':/@,')}" for k, v in extra.items() if v)

    def _base(self) -> str:
        return (self._page or self._own_page()).rstrip("/")

    def _own_page(self) -> str:
        return f"http://{self._link_host()}:{self.port}/"

    @functools.cached_property
    def link_hosts(self) -> list[str]:
        """Where links can point: the bound address, or (bound to every interface) this
        machine's network addresses, the default route's first, so others can open them."""
        return link_hosts(self.options.host)

    def _link_host(self) -> str:
        return url_host(self.link_hosts[0])

    async def stop(self) -> None:
        """Nobody new comes in; everyone there is told, what runs is interrupted and said so, then
        everything stops at once."""
        if self.runner is not None:
            for site in list(self.runner.sites):
                await site.stop()
        await self.runtime.stopping()
        await cancelled(self._relays_task)
        await cancelled(self._upkeep_task)
        if self.hub is not None:
            await self.hub.stop()
        if self._relay_session is not None:
            await self._relay_session.close()
        await self.runtime.close()
        await self.people_store.stop()
        if self.runner is not None:
            await self.runner.cleanup()
        self.recorder.close()
        self.store.close()
        self.lock.release()


class _LateOrigins(set[str]):
    """The server's own origins, known only once the port is bound."""

    def __init__(self, server: CanvasServer) -> None:
        super().__init__()
        self.server = server

    def __contains__(self, origin: object) -> bool:
        return origin in self.server.own_origins()


LOOPBACK = {"127.0.0.1", "localhost", "::1"}


async def _maybe(check: Awaitable[PageCheck] | None) -> PageCheck | None:
    return None if check is None else await check
