"""Where a key of a TOML file is written: tomllib reads values but keeps no positions.

A scenario's problems are named by a path (`attackers[1].type.damage`); this
finds the line and column where that path's key is written, whether in a
[table], an [[array of tables]], a dotted key or an inline table or array.
The text has already been read by tomllib, so it is valid TOML.
"""

from __future__ import annotations

import re

KeyPath = tuple[str | int, ...]  # keys and array indices: ("attackers", 1, "type")

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def parse_path(where: str) -> KeyPath:
    """'attackers[1].type' -> ('attackers', 1, 'type')."""
    return tuple(int(m.group(2)) if m.group(2) is not None else m.group(1) for m in _PATH_PART.finditer(where))


def key_position(text: str, where: str) -> tuple[int, int]:
    """Line and column (1-based) of the key at `where`, or of the nearest enclosing key written; (0, 0) if none."""
    scanner = _Scanner(text)
    try:
        places = scanner.places()
    except (ValueError, IndexError):  # a text it misreads: what it found before is still right
        places = scanner.found
    path = parse_path(where)
    while path:
        if path in places:
            return places[path]
        path = path[:-1]
    return 0, 0


class _Scanner:
    """Walks the text once, noting the position of every key under its full path."""

    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.found: dict[KeyPath, tuple[int, int]] = {}
        self.arrays: dict[KeyPath, int] = {}  # arrays of tables: how many elements so far

    def places(self) -> dict[KeyPath, tuple[int, int]]:
        table: KeyPath = ()
        while self._skip_blank(newlines=True):
            if self.text.startswith("[[", self.i):
                self.i += 2
                keys, at = self._keys()
                base = self._in_arrays(keys[:-1]) + keys[-1:]
                index = self.arrays.get(base, 0)
                self.arrays[base] = index + 1
                table = base + (index,)
                self._note(base, at)
                self._note(table, at)
                self.i = self.text.index("]]", self.i) + 2
            elif self.text.startswith("[", self.i):
                self.i += 1
                keys, at = self._keys()
                table = self._in_arrays(keys)
                self._note(table, at)
                self.i = self.text.index("]", self.i) + 1
            else:
                keys, at = self._keys()
                self._note(table + keys, at)
                self._expect("=")
                self._value(table + keys)
            self._to_line_end()
        return self.found

    # ---- pieces

    def _position(self) -> tuple[int, int]:
        line = self.text.count("\n", 0, self.i) + 1
        return line, self.i - (self.text.rfind("\n", 0, self.i) + 1) + 1

    def _note(self, path: KeyPath, at: tuple[int, int]) -> None:
        self.found.setdefault(path, at)

    def _in_arrays(self, keys: KeyPath) -> KeyPath:
        """A header's path, each array of tables it passes through standing for its latest element."""
        path: KeyPath = ()
        for key in keys:
            path += (key,)
            if path in self.arrays:
                path += (self.arrays[path] - 1,)
        return path

    def _keys(self) -> tuple[KeyPath, tuple[int, int]]:
        """A (dotted) key, and where its first part is written."""
        self._skip_blank()
        at = self._position()
        keys: list[str] = []
        while True:
            self._skip_blank()
            keys.append(self._key())
            self._skip_blank()
            if not self.text.startswith(".", self.i):
                return tuple(keys), at
            self.i += 1

    def _key(self) -> str:
        if self.text[self.i] in "\"'":
            return self._string()
        match = _BARE_KEY.match(self.text, self.i)
        if match is None:  # not TOML after all: stop here
            self.i = len(self.text)
            return ""
        self.i = match.end()
        return match.group()

    def _string(self) -> str:
        quote = self.text[self.i]
        if self.text.startswith(quote * 3, self.i):
            end = self.text.index(quote * 3, self.i + 3)
            while self.text.startswith(quote, end + 3):  # up to two quotes may close the string's own text
                end += 1
            value, self.i = self.text[self.i + 3:end], end + 3
            return value
        j = self.i + 1
        while self.text[j] != quote:
            j += 2 if quote == '"' and self.text[j] == "\\" else 1
        value, self.i = self.text[self.i + 1:j], j + 1
        return value

    def _value(self, path: KeyPath) -> None:
        self._skip_blank(newlines=True)
        char = self.text[self.i] if self.i < len(self.text) else ""
        if char == "{":
            self.i += 1
            while self._skip_blank(newlines=True) and self.text[self.i] != "}":
                if self.text[self.i] == ",":
                    self.i += 1
                    continue
                keys, at = self._keys()
                self._note(path + keys, at)
                self._expect("=")
                self._value(path + keys)
            self.i += 1
        elif char == "[":
            self.i += 1
            index = 0
            while self._skip_blank(newlines=True) and self.text[self.i] != "]":
                if self.text[self.i] == ",":
                    self.i += 1
                    index += 1
                    continue
                self._note(path + (index,), self._position())
                self._value(path + (index,))
            self.i += 1
        elif char in "\"'":
            self._string()
        else:
            start = self.i
            while self.i < len(self.text) and self.text[self.i] not in ",]}\n#":
                self.i += 1
            self.i = max(self.i, start + 1)  # a value is at least one character: the scan always moves on

    def _expect(self, char: str) -> None:
        self._skip_blank()
        if self.text.startswith(char, self.i):
            self.i += 1

    def _skip_blank(self, newlines: bool = False) -> bool:
        """Past spaces (and newlines and comments, if asked); whether any text is left."""
        while self.i < len(self.text):
            char = self.text[self.i]
            if char in " \t\r" or (newlines and char == "\n"):
                self.i += 1
            elif char == "#" and newlines:
                self._to_line_end()
            else:
                break
        return self.i < len(self.text)

    def _to_line_end(self) -> None:
        end = self.text.find("\n", self.i)
        while self.i < len(self.text) and self.text[self.i] in " \t\r":
            self.i += 1
        if self.i < len(self.text) and self.text[self.i] == "#":
            self.i = len(self.text) if end < 0 else end
