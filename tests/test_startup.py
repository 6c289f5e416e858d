"""Start-up: what a fresh process pays before its first result, kept from creeping back.

Most of a short run is importing fracas, so what an import does is a matter
of speed here, not only of style.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")


def _is_dataclass_decorator(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "dataclass"


def undocumented_dataclasses(folders: list[Path]) -> list[str]:
    """Every class in these folders made with @dataclass and written without a docstring."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (isinstance(node, ast.ClassDef) and any(map(_is_dataclass_decorator, node.decorator_list))
                        and ast.get_docstring(node) is None):
                    found.append(f"{path.name}:{node.lineno}: {node.name}")
    return found


def test_every_dataclass_has_a_docstring_so_none_is_written_from_its_signature_at_import() -> None:
    # Without one, @dataclass writes "Name(field: type, ...)" through inspect.signature: about a third
    # of a millisecond per class, in every process that imports it.
    assert undocumented_dataclasses([ROOT / package for package in PACKAGES]) == []


def test_the_docstring_check_finds_a_dataclass_without_one_and_passes_the_others(tmp_path: Path) -> None:
    (tmp_path / "made.py").write_text(
        "@dataclass(frozen=True)\nclass Bare:\n    x: int\n\n\n"
        "@dataclasses.dataclass\nclass Told:\n    \"\"\"Why it exists.\"\"\"\n\n    x: int\n\n\n"
        "class Plain:\n    x: int\n"
    )
    assert undocumented_dataclasses([tmp_path]) == ["made.py:2: Bare"]


def test_the_sieve_made_at_import_gives_every_prime_below_a_thousand_and_nothing_else() -> None:
    from fracas.interpreter.core.dist import _SMALL_PRIMES

    by_trial_division = tuple(q for q in range(2, 1000) if all(q % f for f in range(2, int(q**0.5) + 1)))
    assert _SMALL_PRIMES == by_trial_division


def test_the_cache_hashes_as_hashlib_does() -> None:
    import hashlib

    from fracas.dsl.cache import sha256

    text = "rules text \u00e9".encode()
    assert sha256(text).hexdigest() == hashlib.sha256(text).hexdigest()
    digest = sha256()
    digest.update(text)
    assert digest.digest() == hashlib.sha256(text).digest()


DICE_RUN = """
import sys
from fracas import dsl
from fracas.interpreter import Scenario, exact
rules = 'rules "dice"\\noutcome total: int = 0\\naction throw() {\\n    total = keep_highest(4, 6, 3)\\n}\\n'
odds = exact(dsl.loads(rules), Scenario("throw", {})).marginal("total")
assert sum(odds.values()) == 1
print(" ".join(sorted(sys.modules)))
"""


def test_an_exact_run_of_rules_from_the_cache_imports_no_module_it_does_not_use(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", DICE_RUN], env=env, check=True, capture_output=True)  # fills the cache
    loaded = set(subprocess.run([sys.executable, "-c", DICE_RUN], env=env, check=True, capture_output=True,
                                text=True).stdout.split())
    # OpenSSL's hashes, sampling's generator, and what only a misspelt name or a bad scenario file needs.
    unused = {"hashlib", "random", "difflib", "fracas.dsl.check", "lark", "fracas.interpreter.toml_places"}
    assert loaded & unused == set()
