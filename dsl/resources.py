"""Where the grammar and the shipped rules files are, in a checkout or installed.

A checkout (and an editable install of it) has them as the folders grammars/
and rules/ beside dsl/; an installed wheel carries them as the data packages
fracas_grammars and fracas_rules.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _data_dir(package: str, folder: str, pattern: str) -> Path:
    beside = _CHECKOUT / folder
    if any(beside.glob(pattern)):
        return beside
    spec = importlib.util.find_spec(package)
    for location in (spec.submodule_search_locations or []) if spec else []:
        if any(Path(location).glob(pattern)):
            return Path(location)
    return beside


def grammars_dir() -> Path:
    return _data_dir("fracas_grammars", "grammars", "*.lark")


def shipped_rules_dir() -> Path:
    return _data_dir("fracas_rules", "rules", "*.rules")


def grammar_text(name: str = "fracas.lark") -> str:
    return (grammars_dir() / name).read_text(encoding="utf-8")
