"""Where each key of a TOML text is written, since tomllib keeps no positions.

The paths are those a scenario's problems are named by: `ship.stations[2].role`
(the third `[[ship.stations]]`), `weapon.damage` (a key of an inline table),
`marks[1]` (an item of an array). The text has been read by tomllib already,
so the scanner may assume it is valid TOML; on anything it does not follow
it stops, and what it found so far stands.
"""

from __future__ import annotations

import bisect
import re
import tomllib

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_MULTILINE = re.compile(r'"""(?:[^\\]|\\.)*?"""""?|\'\'\'.*?\'\'\'\'?\'?', re.DOTALL)
_SCALAR = re.compile(r"[^,\]}\s#]+(?:[ T][0-9][^,\]}\s#]*)?")  # numbers, booleans, dates (with a time)
_SPACE = re.compile(r"(?:[ \t\r\n]|#[^\n]*)*")
_INLINE_SPACE = re.compile(r"[ \t]*")


class _Stop(Exception):
    pass


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.at = 0
        self.places: dict[str, tuple[int, int]] = {}
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.arrays: dict[str, int] = {}  # an array of tables -> the index of its last [[...]]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_left(self.newlines, offset)
        start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def skip(self, pattern: re.Pattern[str] = _SPACE) -> None:
        found = pattern.match(self.text, self.at)
        if found:
            self.at = found.end()

    def peek(self, literal: str) -> bool:
        return self.text.startswith(literal, self.at)

    def take(self, literal: str) -> None:
        if not self.peek(literal):
            raise _Stop
        self.at += len(literal)

    def place(self, path: str, offset: int) -> None:
        self.places.setdefault(path, self.position(offset))

    def key(self) -> list[tuple[str, int]]:
        """A dotted key: each part with the offset it starts at."""
        parts = []
        while True:
            self.skip(_INLINE_SPACE)
            start = self.at
            for pattern in (_BASIC, _LITERAL, _BARE):
                found = pattern.match(self.text, self.at)
                if found:
                    self.at = found.end()
                    part = found.group()
                    if pattern is _BARE:
                        parts.append((part, start))
                    else:  # named as tomllib reads it (escapes and all), placed at its first character, not the quote
                        name = tomllib.loads(f"k = {part}")["k"] if pattern is _BASIC else part[1:-1]
                        parts.append((name, start + 1))
                    break
            else:
                raise _Stop
            self.skip(_INLINE_SPACE)
            if not self.peek("."):
                return parts
            self.at += 1

    def header(self, prefix: str, parts: list[tuple[str, int]]) -> str:
        """The path of a dotted key under prefix; each prefix that is an array of tables gets its last index."""
        path = prefix
        for name, start in parts:
            path = f"{path}.{name}" if path else name
            self.place(path, start)
            if path in self.arrays:
                path = f"{path}[{self.arrays[path]}]"
        return path

    def document(self) -> None:
        table = ""
        while True:
            self.skip()
            if self.at >= len(self.text):
                return
            if self.peek("[["):
                self.at += 2
                parts = self.key()
                self.take("]]")
                base = self.header("", parts[:-1])
                name, start = parts[-1]
                array = f"{base}.{name}" if base else name
                self.arrays[array] = self.arrays.get(array, -1) + 1
                table = f"{array}[{self.arrays[array]}]"
                self.place(array, start)
                self.place(table, start)
            elif self.peek("["):
                self.at += 1
                parts = self.key()
                self.take("]")
                table = self.header("", parts)
            else:
                self.pair(table)

    def pair(self, table: str) -> None:
        parts = self.key()
        path = self.header(table, parts)
        self.take("=")
        self.skip(_INLINE_SPACE)
        self.value(path)

    def value(self, path: str) -> None:
        if self.peek("{"):
            self.at += 1
            while True:
                self.skip(_INLINE_SPACE)
                if self.peek("}"):
                    self.at += 1
                    return
                self.pair(path)
                self.skip(_INLINE_SPACE)
                if self.peek(","):
                    self.at += 1
        elif self.peek("["):
            self.at += 1
            index = 0
            while True:
                self.skip()
                if self.peek("]"):
                    self.at += 1
                    return
                item = f"{path}[{index}]"
                self.place(item, self.at)
                self.value(item)
                index += 1
                self.skip()
                if self.peek(","):
                    self.at += 1
        else:
            for pattern in (_MULTILINE, _BASIC, _LITERAL, _SCALAR):
                found = pattern.match(self.text, self.at)
                if found:
                    self.at = found.end()
                    return
            raise _Stop


def key_places(text: str) -> dict[str, tuple[int, int]]:
    """Every key path of a TOML text (tables, keys, array items) with the line and column it is written at."""
    scanner = _Scanner(text)
    try:
        scanner.document()
    except _Stop:
        pass
    return scanner.places
