"""Reading a code base's functions into shapes, each file by the parser of its language
(by extension), after checking the whole input: one bad file reads nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.code_shapes import FunctionShape
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.procedures import (
    MAX_PATH_CHARS,
    InputTooLargeError,
    UnsupportedLanguageError,
)
from thoughtgraph.features.procedures.ecmascript_shapes import (
    javascript_shapes,
    tsx_shapes,
    typescript_shapes,
)
from thoughtgraph.features.procedures.python_shapes import python_shapes

MAX_EXTRACT_FILES = 50
MAX_FILE_CHARS = 200_000
MAX_TOTAL_CHARS = 1_000_000

Parser = Callable[..., list[FunctionShape]]
PARSERS: dict[str, Parser] = {
    ".py": python_shapes,
    ".js": javascript_shapes,
    ".mjs": javascript_shapes,
    ".cjs": javascript_shapes,
    ".jsx": javascript_shapes,
    ".ts": typescript_shapes,
    ".mts": typescript_shapes,
    ".cts": typescript_shapes,
    ".tsx": tsx_shapes,
}


@dataclass(frozen=True)
class SourceFile:
    path: str
    content: str


def check_files(files: Sequence[SourceFile]) -> list[SourceFile]:
    """The files if every one may be read: a path once, a known language, sizes within
    the limits (INPUT_TOO_LARGE), else the first problem, naming its field."""
    if not files:
        raise InvalidInputError("give at least one file", field="files")
    if len(files) > MAX_EXTRACT_FILES:
        raise InputTooLargeError(
            f"at most {MAX_EXTRACT_FILES} files per call, {len(files)} given",
            field="files",
            limit=MAX_EXTRACT_FILES,
        )
    total = 0
    seen: set[str] = set()
    for n, file in enumerate(files):
        path = check.require_name(f"files[{n}].path", file.path, MAX_PATH_CHARS)
        if path in seen:
            raise InvalidInputError(f"{path} is given twice", field=f"files[{n}].path")
        seen.add(path)
        if PurePosixPath(path).suffix.lower() not in PARSERS:
            raise UnsupportedLanguageError(
                f"{path}: only Python (.py), JavaScript (.js, .mjs, .cjs, .jsx) and"
                " TypeScript (.ts, .mts, .cts, .tsx) are read",
                field=f"files[{n}].path",
            )
        if len(file.content) > MAX_FILE_CHARS:
            raise InputTooLargeError(
                f"{path} is {len(file.content)} characters; the limit is {MAX_FILE_CHARS}",
                field=f"files[{n}].content",
                limit=MAX_FILE_CHARS,
            )
        total += len(file.content)
    if total > MAX_TOTAL_CHARS:
        raise InputTooLargeError(
            f"{total} characters of code; the limit per call is {MAX_TOTAL_CHARS}",
            field="files",
            limit=MAX_TOTAL_CHARS,
        )
    return [SourceFile(path=f.path.strip(), content=f.content) for f in files]


def read_shapes(files: Sequence[SourceFile]) -> list[FunctionShape]:
    """Every function's shape across the files (checked first: see check_files)."""
    shapes: list[FunctionShape] = []
    for n, file in enumerate(check_files(files)):
        parser = PARSERS[PurePosixPath(file.path).suffix.lower()]
        shapes.extend(parser(file.path, file.content, field=f"files[{n}].content"))
    return shapes
