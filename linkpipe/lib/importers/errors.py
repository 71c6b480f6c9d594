"""The one error every importer raises for input it cannot read."""

from __future__ import annotations

from collections.abc import Callable


class ImportFormatError(ValueError):
    """A crawl export, WARC or URL list that cannot be read, with where the problem is.

    ``str(error)`` is one line, e.g.
    ``internal_all.csv line 7, column "Status Code": expected an integer, got 'abc'``.
    For WARC files ``line`` holds the byte offset of the bad record (shown as "offset N").
    """

    def __init__(
        self,
        file: str,
        line: int | None,
        column: str | None,
        message: str,
        *,
        unit: str = "line",
    ) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.message = " ".join(message.split())  # always one line
        self.unit = unit
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.file
        if self.line is not None:
            where += f" {self.unit} {self.line}"
        if self.column:
            where += f', column "{self.column}"'
        return f"{where}: {self.message}"

    def __reduce__(  # keep pickling (multiprocessing, Dagster) working
        self,
    ) -> tuple[Callable[..., ImportFormatError], tuple[str, int | None, str | None, str, str]]:
        return (_rebuild, (self.file, self.line, self.column, self.message, self.unit))


def _rebuild(
    file: str, line: int | None, column: str | None, message: str, unit: str
) -> ImportFormatError:
    return ImportFormatError(file, line, column, message, unit=unit)
