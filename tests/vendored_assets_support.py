"""Checks of a page's vendored npm files (the explorer's and GraphiQL's): the manifest that
web/copy_assets.mjs wrote agrees with the npm folder's lock file and with the shipped files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.support import skip_or_fail


def manifest(assets_dir: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((assets_dir / "manifest.json").read_text())
    return loaded


def check_manifest(
    npm_dir: Path, assets_dir: Path, own_files: set[str], build_script: str
) -> dict[str, Any]:
    """Every recorded package is pinned and recorded at its locked version and integrity,
    every copied file has the recorded digest, and the folder holds nothing else than
    ``own_files``. Returns the manifest."""
    lock = json.loads((npm_dir / "package-lock.json").read_text())
    pinned = json.loads((npm_dir / "package.json").read_text())["dependencies"]
    recorded = manifest(assets_dir)
    assert lock["packages"][""]["dependencies"] == pinned
    for package, entry in recorded["packages"].items():
        locked = lock["packages"][f"node_modules/{package}"]
        assert entry["version"] == locked["version"] == pinned[package], package
        assert entry["integrity"] == locked["integrity"], package
    for name, entry in recorded["files"].items():
        assert entry["package"] in recorded["packages"], name
        digest = hashlib.sha256((assets_dir / name).read_bytes()).hexdigest()
        assert digest == entry["sha256"], f"{name} differs from what {build_script} copied"
    shipped = {path.name for path in assets_dir.iterdir() if path.is_file()}
    assert shipped == set(recorded["files"]) | own_files
    return recorded


def check_shipped_files_are_installed(npm_dir: Path, assets_dir: Path) -> None:
    """With the npm folder's node_modules present, the shipped files are byte for byte the
    installed packages' files."""
    if not (npm_dir / "node_modules").is_dir():
        skip_or_fail(f"web/{npm_dir.name}/node_modules is absent: scripts/dev test installs it")
    for name, entry in manifest(assets_dir)["files"].items():
        source = npm_dir / "node_modules" / entry["package"] / entry["path"]
        assert (assets_dir / name).read_bytes() == source.read_bytes(), name
