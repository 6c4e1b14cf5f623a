"""Finds Java and Maven and resolves the Neo4j Community server's class path from Maven Central.

The project to resolve is ``neo4j/pom.xml`` beside this module. Maven keeps the jars in
its own repository (``~/.m2``); the resolved class path is cached per pom under
``$XDG_CACHE_HOME/thoughtgraph/neo4j/`` so a second start needs neither Maven nor the
network. Both live outside the work tree.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from thoughtgraph.domain.errors import ConfigurationError

MIN_JAVA = 17
POM_RESOURCE = "pom.xml"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
RESOLVE_TIMEOUT_S = 900


class DevToolMissingError(ConfigurationError):
    """Java or Maven is not installed (or too old): the dev server cannot run here."""

    code = "DEV_TOOL_MISSING"


@dataclass(frozen=True)
class Neo4jDistribution:
    java: Path
    classpath: str
    neo4j_version: str

    def command(self, *, home: Path, heap: str, jvm_options: list[str]) -> list[str]:
        return [
            str(self.java),
            f"-Xms{heap}",
            f"-Xmx{heap}",
            *jvm_options,
            "-cp",
            self.classpath,
            ENTRY_POINT,
            f"--home-dir={home}",
            f"--config-dir={home / 'conf'}",
        ]


def pom_text() -> str:
    return (
        resources.files("thoughtgraph.tools.neo4j")
        .joinpath(POM_RESOURCE)
        .read_text(encoding="utf-8")
    )


def neo4j_version(pom: str) -> str:
    found = re.search(r"<neo4j\.version>([^<]+)</neo4j\.version>", pom)
    if not found:
        raise ConfigurationError("app/dev/neo4j/pom.xml names no <neo4j.version>")
    return found.group(1)


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thoughtgraph" / "neo4j"


def find_java() -> Path:
    """The java binary of JAVA_HOME, else the first on PATH; Java 17 or newer."""
    candidates = []
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidates.append(Path(java_home) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path))
    java = next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)
    if java is None:
        raise DevToolMissingError(
            f"Java {MIN_JAVA} or newer is needed to run Neo4j, and no `java` was found "
            "(JAVA_HOME or PATH); install a JDK, e.g. `apt-get install openjdk-17-jdk-headless`"
        )
    major = java_major_version(java)
    if major < MIN_JAVA:
        raise DevToolMissingError(
            f"Neo4j needs Java {MIN_JAVA} or newer; {java} is Java {major}",
        )
    return java


def java_major_version(java: Path) -> int:
    try:
        done = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError as exc:
        raise DevToolMissingError(f"cannot run {java}: {exc}") from exc
    # `java -version` prints to stderr, e.g. 'openjdk version "17.0.15" 2025-04-15'.
    found = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if not found:
        raise DevToolMissingError(f"cannot tell the version of {java}: {done.stderr.strip()}")
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major  # "1.8" means Java 8


def find_maven() -> Path:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise DevToolMissingError(
            "Maven (`mvn`) is needed once to fetch Neo4j from Maven Central, and none was "
            "found on PATH; install it, e.g. `apt-get install maven`"
        )
    return Path(mvn)


def resolve(*, log: bool = True) -> Neo4jDistribution:
    """Java, plus the server's class path: cached, or resolved with Maven now."""
    java = find_java()
    pom = pom_text()
    version = neo4j_version(pom)
    project_dir = cache_root() / hashlib.sha256(pom.encode()).hexdigest()[:16]
    classpath_file = project_dir / "classpath.txt"
    classpath = _cached_classpath(classpath_file)
    if classpath is None:
        if log:
            print(
                f"thoughtgraph: fetching Neo4j {version} from Maven Central (once; "
                f"jars go to ~/.m2)",
                flush=True,
            )
        classpath = _resolve_with_maven(find_maven(), project_dir, pom, classpath_file)
    return Neo4jDistribution(java=java, classpath=classpath, neo4j_version=version)


def _cached_classpath(path: Path) -> str | None:
    try:
        classpath = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    jars = classpath.split(os.pathsep)
    # A cleaned ~/.m2 invalidates the cache: resolve again rather than fail at start.
    if not classpath or not all(Path(jar).is_file() for jar in jars):
        return None
    return classpath


def _resolve_with_maven(mvn: Path, project_dir: Path, pom: str, out: Path) -> str:
    project_dir.mkdir(parents=True, exist_ok=True)
    (project_dir / "pom.xml").write_text(pom, encoding="utf-8")
    partial = out.with_suffix(".partial")
    command = [
        str(mvn),
        "--batch-mode",
        "--quiet",
        "--file",
        str(project_dir / "pom.xml"),
        "dependency:build-classpath",
        f"-Dmdep.outputFile={partial}",
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigurationError(f"Maven could not resolve Neo4j: {exc}") from exc
    if done.returncode != 0 or not partial.exists():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise ConfigurationError(
            f"Maven could not resolve Neo4j from Maven Central (exit {done.returncode}):\n{tail}"
        )
    partial.replace(out)
    return out.read_text(encoding="utf-8").strip()
