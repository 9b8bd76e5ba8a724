"""Builds the web app into `canvasrelay/web_dist` so `pip install .` ships it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class WebBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name not in ("wheel", "sdist") or os.environ.get("CANVAS_SKIP_WEB_BUILD"):
            return
        root = Path(self.root)
        web = root / "web"
        dist = root / "canvasrelay" / "web_dist"
        if not (web / "package.json").exists():
            if not (dist / "index.html").exists():
                raise RuntimeError("web/ is missing and canvasrelay/web_dist is not built")
            return
        if self.target_name == "sdist":
            return
        npm = shutil.which("npm")
        if npm is None:
            if (dist / "index.html").exists():
                return
            raise RuntimeError("npm is needed to build the web app (Node 20+)")
        if not (web / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=web, check=True)
        subprocess.run([npm, "run", "build"], cwd=web, check=True)
