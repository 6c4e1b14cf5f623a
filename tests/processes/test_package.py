"""The distribution on its own: the wheel carries the Cypher library and the other package
data, and once installed in a fresh virtualenv, `thoughtgraph serve` works from any working
directory, without the repository.

The wheel is built from the sdist of a copy of the source tree (so the sdist is proved too,
and no build/ or *.egg-info lands in the checkout). The fresh virtualenv gets the wheel with
`--no-deps`; the dependencies (torch and the model among them, gigabytes) come from this
interpreter's site-packages through a .pth line, whose own .pth files (the editable
install's link tree among them) Python does not process, so `thoughtgraph` is the wheel's
copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.processes.test_serve_process import CONTRIBUTE, post
from tests.support import free_port, serve_process

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}
SEARCH = "query($q: String!) { search(query: $q, k: 3) { similarity thought { id content } } }"
# Checks, inside the fresh venv, that every requirement of the installed distribution is met.
REQUIREMENTS_MET = """
import importlib.metadata as md, json
from packaging.requirements import Requirement
dist = md.distribution("thoughtgraph")
unmet = []
for text in dist.requires or []:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue  # an extra's requirement (dev)
    try:
        installed = md.version(req.name)
    except md.PackageNotFoundError:
        unmet.append(f"{req}: not installed")
        continue
    if not req.specifier.contains(installed, prereleases=True):
        unmet.append(f"{req}: {installed} installed")
print(json.dumps({"at": str(dist.locate_file("")), "requires": dist.requires, "unmet": unmet}))
"""


@dataclass(frozen=True)
class Installed:
    venv: Path
    site_packages: Path
    workdir: Path  # outside the repository, for every command run in the fresh venv

    def run(self, *args: str) -> str:
        result = subprocess.run(
            [str(self.venv / "bin" / "python"), *args],
            env=child_env(),
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout


def child_env() -> dict[str, str]:
    hidden = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_") and k not in hidden}
    env.update(OFFLINE)
    return env


def run(command: list[str], cwd: Path | None = None) -> str:
    """Run a build or install step; its output is shown only when it fails."""
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def outside_repo(path: Path) -> Path:
    assert not path.resolve().is_relative_to(REPO), f"{path} is inside the repository"
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source") / "thoughtgraph"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".*", "build", "dist", "*.egg-info", "__pycache__", "node_modules", "tests"
        ),
    )
    out = outside_repo(tmp_path_factory.mktemp("dist"))
    build_sdist = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
    sdist = run([sys.executable, "-c", build_sdist, str(out)], cwd=source).split()[-1]
    pip_wheel = ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir"]
    run([sys.executable, *pip_wheel, "--quiet", "-w", str(out), str(out / sdist)])
    (built,) = out.glob("thoughtgraph-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    venv = outside_repo(tmp_path_factory.mktemp("venv") / "fresh")
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pip_install = ["-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    run([sys.executable, *pip_install, "--quiet", "--no-cache-dir", str(wheel)])
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site_packages = Path(run([str(python), "-c", purelib]).strip())
    ours = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (site_packages / "project-dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    return Installed(venv, site_packages, outside_repo(tmp_path_factory.mktemp("workdir")))


def test_listed_packages_are_the_source_tree() -> None:
    """pyproject.toml lists its packages (app/ installs as thoughtgraph, workers/ as
    thoughtgraph.workers, cypher/ as thoughtgraph.cypher): a new package has to be added there,
    or the wheel lacks it."""
    listed = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    discover = "import json, setuptools; print(json.dumps(setuptools.find_namespace_packages("
    discover += "include=['app*', 'workers*'])))"
    found = json.loads(run([sys.executable, "-c", discover], cwd=REPO))
    installed_as = [
        "thoughtgraph" + name.removeprefix("app")
        if name.startswith("app")
        else "thoughtgraph." + name
        for name in found
    ]
    assert sorted(listed) == sorted([*installed_as, "thoughtgraph.cypher"]), (
        "update [tool.setuptools] packages"
    )


@pytest.mark.slow
def test_wheel_carries_statements_and_package_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name in (
            "thoughtgraph/cypher/thought/create.cypher",
            "thoughtgraph/cypher/schema/bootstrap.neo4j.cypher",
            "thoughtgraph/tools/neo4j/pom.xml",
            "thoughtgraph/workers/tasks.py",
            "thoughtgraph/py.typed",
        ):
            assert name in names
        # Every file of cypher/, whatever its extension, as it is in the repository.
        for path in (REPO / "cypher").rglob("*"):
            if path.is_file() and not path.name.startswith("."):
                name = f"thoughtgraph/cypher/{path.relative_to(REPO / 'cypher').as_posix()}"
                assert archive.read(name) == path.read_bytes(), name
        # GraphiQL's page and every file it loads (the service serves them; no CDN).
        graphiql = REPO / "app" / "api" / "graphiql"
        for path in [graphiql / "page.html", *(graphiql / "assets").iterdir()]:
            name = f"thoughtgraph/api/graphiql/{path.relative_to(graphiql).as_posix()}"
            assert archive.read(name) == path.read_bytes(), name
    # One top-level import name: no app/, workers/, cypher/ or tests/ of its own.
    top_level = {name.split("/")[0] for name in names if "/" in name}
    assert top_level == {"thoughtgraph", *(n for n in top_level if n.endswith(".dist-info"))}


@pytest.mark.slow
def test_installed_wheel_uses_its_own_copy(installed: Installed) -> None:
    shown = installed.run(
        "-c",
        "import thoughtgraph.settings as s; print(s.__file__); print(s.Settings().cypher_dir)",
    )
    module, cypher_dir = (Path(line) for line in shown.splitlines())
    assert module == installed.site_packages / "thoughtgraph" / "settings.py"
    assert cypher_dir == installed.site_packages / "thoughtgraph" / "cypher"
    for other in ("app", "workers"):
        missing = installed.run("-c", f"import importlib.util as u; print(u.find_spec({other!r}))")
        assert missing.strip() == "None", f"the wheel installs a top-level {other!r}"
    assert (cypher_dir / "thought" / "create.cypher").is_file()


@pytest.mark.slow
def test_installed_wheel_requirements_are_met(installed: Installed) -> None:
    report = json.loads(installed.run("-c", REQUIREMENTS_MET))
    assert Path(report["at"]) == installed.site_packages
    assert report["requires"], "the installed distribution declares no requirements"
    assert report["unmet"] == []


@pytest.mark.slow
def test_installed_wheel_serves_from_anywhere(installed: Installed) -> None:
    port = free_port()
    data_dir = outside_repo(installed.workdir / "data")
    command = [str(installed.venv / "bin" / "thoughtgraph"), "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data_dir)]
    env = child_env() | {"TG_LOG_FORMAT": "json"}  # the real (local) embedder: its model too
    log = installed.workdir / "serve.log"
    with serve_process(command, port=port, env=env, log=log, cwd=installed.workdir) as (
        process,
        client,
    ):
        health = client.get("/healthz").json()
        assert health["embedder"]["dimension"] == 384
        graphiql = client.get("/graphql", headers={"accept": "text/html"})
        assert graphiql.status_code == 200
        script = re.search(r'src="(graphiql-assets/graphiql\.min\.js[^"]*)"', graphiql.text)
        assert script, graphiql.text
        assert client.get(f"/{script.group(1)}").status_code == 200
        content = "Packaged services find their Cypher statements"
        contributed: Any = post(
            client, CONTRIBUTE, input={"content": content, "agentId": "p", "agentName": "P"}
        )
        thought_id = contributed["contribute"]["thought"]["id"]
        hits: Any = post(client, SEARCH, q="where does the service find its Cypher?")["search"]
        assert hits[0]["thought"] == {"id": thought_id, "content": content}
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0, log.read_text()
    assert (data_dir / "falkordb").is_dir()
