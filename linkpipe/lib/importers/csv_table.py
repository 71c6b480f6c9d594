"""Strict reading of spreadsheet-style CSV exports: columns by name, typed cells, exact errors.

Used by the Screaming Frog importer. Every problem raises :class:`ImportFormatError` with the
file name, the physical line where the record starts and the column name.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from linkpipe.lib.importers.errors import ImportFormatError

_DELIMITERS = (",", ";", "\t")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})
INT32_MAX = 2**31 - 1  # the largest value an INTEGER column holds


class Notes:
    """Warnings grouped by kind: the first example of each, plus how many more there were."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        self.count: Counter[str] = Counter()

    def add(self, kind: str, text: str) -> None:
        self.count[kind] += 1
        self.first.setdefault(kind, text)

    def lines(self) -> list[str]:
        """One line per kind of warning."""
        return [
            text if self.count[kind] == 1 else f"{text} (and {self.count[kind] - 1} more like it)"
            for kind, text in self.first.items()
        ]


class Row:
    """One data record of a :class:`CsvTable`; cells are looked up by column name."""

    __slots__ = ("line", "table", "values")

    def __init__(self, table: CsvTable, line: int, values: list[str]) -> None:
        self.table, self.line, self.values = table, line, values

    def error(self, column: str | None, message: str) -> ImportFormatError:
        name = self.table.column_name(column) if column else None
        return ImportFormatError(self.table.name, self.line, name, message)

    def text(self, column: str) -> str:
        """The stripped cell ("" when the column is absent)."""
        index = self.table.position(column)
        return self.values[index].strip() if index is not None else ""

    def texts(self, columns: tuple[str, ...]) -> list[str]:
        """Several stripped cells at once (the fast path for big files)."""
        values = self.values
        return [values[i].strip() if i >= 0 else "" for i in self.table.positions(columns)]

    def integer(self, column: str, maximum: int = INT32_MAX) -> int | None:
        """The cell as an int from 0 to ``maximum`` (None when empty or absent)."""
        value = self.text(column)
        if not value:
            return None
        try:
            number = int(value)
        except ValueError:
            raise self.error(column, f"expected an integer, got {value!r}") from None
        if not 0 <= number <= maximum:
            raise self.error(column, f"expected an integer from 0 to {maximum}, got {value!r}")
        return number

    def number(self, column: str) -> float | None:
        """The cell as a finite float (None when empty or absent)."""
        value = self.text(column)
        if not value:
            return None
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise self.error(column, f"expected a number, got {value!r}")
        return number

    def flag(self, column: str, default: bool, value: str | None = None) -> bool:
        """A true/false cell (``default`` when empty or absent); ``value`` if already read."""
        value = (self.text(column) if value is None else value).lower()
        if not value:
            return default
        if value in _TRUE or value in _FALSE:
            return value in _TRUE
        raise self.error(column, f"expected true or false, got {value!r}")


class CsvTable:
    """A CSV export read by column name (UTF-8 with or without BOM, or UTF-16 with a BOM).

    Iterating yields :class:`Row` objects; the header must hold every column in ``required``.
    A one-cell title row above the header (older Screaming Frog exports) is skipped.
    """

    def __init__(self, path: Path, required: tuple[str, ...]) -> None:
        self.path, self.name, self.required = path, path.name, required
        self.index: dict[str, int] = {}  # lower-cased column name -> position
        self.header: list[str] = []
        self._positions: dict[str, int | None] = {}  # memo for position()
        self._position_tuples: dict[tuple[str, ...], tuple[int, ...]] = {}
        with path.open("rb") as handle:
            self.head = handle.read(4096)
        if self.head.startswith(b"PK\x03\x04"):
            raise ImportFormatError(self.name, None, None, "an Excel workbook, not a CSV file")
        self.encoding = "utf-16" if self.head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
        if self.encoding == "utf-8-sig" and b"\x00" in self.head:
            raise ImportFormatError(self.name, None, None, "binary data, not a CSV file")

    def position(self, column: str) -> int | None:
        """Where ``column`` (any case) is in a row; None when the file lacks it."""
        try:
            return self._positions[column]
        except KeyError:
            found = self._positions[column] = self.index.get(column.lower())
            return found

    def positions(self, columns: tuple[str, ...]) -> tuple[int, ...]:
        """:meth:`position` of each column, -1 for absent ones (memoized per tuple)."""
        try:
            return self._position_tuples[columns]
        except KeyError:
            found = tuple(-1 if (i := self.position(c)) is None else i for c in columns)
            self._position_tuples[columns] = found
            return found

    def column_name(self, column: str) -> str:
        """The column's name as the file spells it (``column`` itself when absent)."""
        index = self.index.get(column.lower())
        return self.header[index] if index is not None else column

    def _delimiter(self, handle: IO[str]) -> str:
        """The separator the header line uses most (SF writes ",", some locales ";" or tabs)."""
        lines = [handle.readline(), handle.readline()]
        handle.seek(0)
        for line in lines:
            counts = {d: line.count(d) for d in _DELIMITERS}
            best = max(_DELIMITERS, key=lambda d: counts[d])
            if counts[best]:
                return best
        return ","

    def _records(self, handle: IO[str]) -> Iterator[tuple[int, list[str]]]:
        reader = csv.reader(handle, delimiter=self._delimiter(handle), strict=True)
        line = 1
        while True:
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:  # reported where the broken record starts
                raise ImportFormatError(
                    self.name, line, None, f"not a valid CSV file ({exc})"
                ) from None
            yield line, values
            line = reader.line_num + 1

    def _check_text(self, line: int, values: list[str]) -> None:
        """Undecodable bytes (kept as surrogates by the reader) are an error."""
        try:
            "".join(values).encode("utf-8")
            return
        except UnicodeEncodeError:
            pass
        for position, value in enumerate(values):
            if value.isascii():
                continue
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                byte = ord(value[exc.start]) - 0xDC00
                column = self.header[position] if position < len(self.header) else None
                raise ImportFormatError(
                    self.name,
                    line,
                    column,
                    f"byte 0x{byte:02x} is not valid {self.encoding.removesuffix('-sig').upper()}; "
                    "export the file again as UTF-8",
                ) from None

    def __iter__(self) -> Iterator[Row]:
        with self.path.open(encoding=self.encoding, errors="surrogateescape", newline="") as fh:
            records = self._records(fh)
            first = next(records, None)
            if first is None:
                raise ImportFormatError(self.name, 1, None, "the file is empty")
            if len(first[1]) == 1 and not self._has_required(first[1]):
                second = next(records, None)  # "Internal - All" title row of old exports?
                if second is not None and self._has_required(second[1]):
                    first = second
            self._set_header(*first)
            width = len(self.header)
            for line, values in records:
                if not values:
                    continue
                self._check_text(line, values)
                if len(values) != width:
                    column = self.header[len(values)] if len(values) < width else None
                    raise ImportFormatError(
                        self.name,
                        line,
                        column,
                        f"the row has {len(values)} fields, the header has {width}",
                    )
                yield Row(self, line, values)

    def _has_required(self, values: list[str]) -> bool:
        names = {" ".join(v.split()).lower() for v in values}
        return all(name.lower() in names for name in self.required)

    def _set_header(self, line: int, values: list[str]) -> None:
        self._check_text(line, values)
        self.header = [" ".join(value.split()) for value in values]
        for position, name in enumerate(self.header):
            self.index.setdefault(name.lower(), position)
        for name in self.required:
            if name.lower() not in self.index:
                found = ", ".join(repr(h[:40]) for h in self.header[:5])
                more = ", ..." if len(self.header) > 5 else ""
                raise ImportFormatError(
                    self.name, line, name, f"missing from the header (found: {found}{more})"
                )
