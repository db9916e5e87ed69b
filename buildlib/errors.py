"""The one error type of the build: a message tied to a file and line."""

from __future__ import annotations

from pathlib import Path


class BuildError(Exception):
    """A problem in an input, reported as `path:line: message`."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = self.path or ""
        if self.path and self.line:
            where += f":{self.line}"
        return f"{where}: {self.message}" if where else self.message
