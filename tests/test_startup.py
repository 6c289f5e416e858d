"""Start-up: what a fresh process pays before its first result, kept from creeping back.

Most of a short run is importing fracas, so what an import does is a matter
of speed here, not only of style.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from fracas.dsl import nodes as n

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")


def _is_dataclass_decorator(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "dataclass"


def dataclasses_made(folders: list[Path]) -> list[str]:
    """Every class in these folders made with @dataclass itself."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and any(map(_is_dataclass_decorator, node.decorator_list)):
                    found.append(f"{path.name}:{node.lineno}: {node.name}")
    return found


def test_every_class_of_fields_is_made_as_a_record_not_by_dataclass_itself() -> None:
    # Python 3.11's @dataclass compiles each of a class's methods on its own: 0.2-0.6 ms a class, in
    # every process that imports it. A record shares them with every class of its shape.
    assert dataclasses_made([ROOT / package for package in PACKAGES]) == []


def test_the_dataclass_check_finds_each_way_of_writing_one(tmp_path: Path) -> None:
    (tmp_path / "made.py").write_text(
        "@dataclass(frozen=True)\nclass Bare:\n    x: int\n\n\n"
        "@dataclasses.dataclass\nclass Told:\n    x: int\n\n\n"
        "@record\nclass Kept:\n    x: int\n\n\n"
        "class Plain:\n    x: int\n"
    )
    assert dataclasses_made([tmp_path]) == ["made.py:2: Bare", "made.py:7: Told"]


def test_the_sieve_made_at_import_gives_every_prime_below_a_thousand_and_nothing_else() -> None:
    from fracas.interpreter.core.dist import _SMALL_PRIMES

    by_trial_division = tuple(q for q in range(2, 1000) if all(q % f for f in range(2, int(q**0.5) + 1)))
    assert _SMALL_PRIMES == by_trial_division


def test_the_cache_hashes_as_hashlib_does() -> None:
    import hashlib

    from fracas.dsl.cache import fingerprint

    text = "rules text \u00e9".encode()
    assert fingerprint(text).hexdigest() == hashlib.blake2b(text).hexdigest()
    digest = fingerprint()
    digest.update(text)
    assert digest.digest() == hashlib.blake2b(text).digest()


WITHOUT_BLAKE2 = """
import sys
sys.modules["_blake2"] = None  # a Python built without BLAKE2 (some FIPS builds)
import hashlib
if hasattr(hashlib, "blake2b"):  # OpenSSL's, where hashlib found one
    del hashlib.blake2b
from fracas.dsl import cache
from fracas.interpreter import Scenario, exact
from fracas import dsl
rules = 'rules "dice"\\noutcome total: int = 0\\naction throw() {\\n    total = keep_highest(4, 6, 3)\\n}\\n'
assert sum(exact(dsl.loads(rules), Scenario("throw", {})).marginal("total").values()) == 1
print(cache.fingerprint(b"x").hexdigest() == hashlib.sha256(b"x").hexdigest())
"""


def test_a_python_without_blake2_keys_its_cache_by_sha256(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", WITHOUT_BLAKE2], env=env, check=True, capture_output=True, text=True)
    assert done.stdout.strip() == "True"


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
    for _ in range(2):  # fill the cache: the checked rules, then (the text given again) the code kept with them
        subprocess.run([sys.executable, "-c", DICE_RUN], env=env, check=True, capture_output=True)
    loaded = set(subprocess.run([sys.executable, "-c", DICE_RUN], env=env, check=True, capture_output=True,
                                text=True).stdout.split())
    # OpenSSL's hashes, sampling's generator, what only rules not in the cache need (the checker, the
    # reading of what a file extends, Lark), what only a misspelt name or a bad scenario needs, the
    # pure-Python pickler around the C one the cache uses, dataclasses with the inspect it imports
    # (records are made without them: see fracas.dsl.records), and ast (what compiles generated code).
    unused = {"hashlib", "random", "difflib", "fracas.dsl.check", "fracas.dsl.extend", "lark",
              "fracas.interpreter.toml_places", "pickle", "dataclasses", "inspect", "ast"}
    assert loaded & unused == set()


SCENARIO_READ = """
import sys
from fracas.interpreter import parse_scenario
scenario = parse_scenario('action = "attack"\\n[params]\\nbonus = 1\\n[choices]\\nstance = "bold"\\n[target]\\ntype = "knight"\\n')
assert (scenario.action, scenario.params, scenario.choices) == ("attack", {"bonus": 1}, {"stance": "bold"})
assert scenario.inputs == {"target": {"type": "knight"}}
print(" ".join(sorted(sys.modules)))
"""


def test_a_scenario_whose_action_params_and_choices_fit_is_read_without_importing_cattrs() -> None:
    # cattrs (with attrs and inspect) takes some 45 ms to import, a quarter of a `fracas odds` call: it is
    # imported only to tell which of them does not fit (test_cli's malformed envelopes).
    loaded = set(subprocess.run([sys.executable, "-c", SCENARIO_READ], check=True, capture_output=True,
                                text=True).stdout.split())
    assert loaded & {"cattrs", "attrs", "attr", "inspect", "dataclasses"} == set()


def _frozen_twin(cls: type) -> type:
    """What @dataclass(frozen=True, slots=True) makes of a node class's fields: the behaviour nodes keep."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, compare=f.compare, repr=f.repr))
             for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, slots=True)


NODE_CLASSES = [cls for cls in vars(n).values() if isinstance(cls, type) and issubclass(cls, n.Node)]


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda cls: cls.__name__)
def test_a_node_class_is_made_as_a_frozen_dataclass_would_make_it(cls: type) -> None:
    twin = _frozen_twin(cls)
    def parameters(made: type) -> list[tuple[str, object, object]]:  # the annotations aside
        return [(p.name, p.default, p.kind) for p in inspect.signature(made).parameters.values()]

    assert parameters(cls) == parameters(twin)
    names = [f.name for f in dataclasses.fields(cls)]
    values = [n.Pos(number, 1, number, 2) for number in range(1, len(names) + 1)]
    by_place, by_name = cls(*values), cls(**dict(zip(names, values)))
    assert [getattr(by_name, name) for name in names] == values
    assert by_place == by_name and hash(by_place) == hash(by_name)
    assert repr(by_place) == repr(twin(*values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_place, names[-1], None)
    assert pickle.loads(pickle.dumps(by_place)) == by_place
    assert getattr(dataclasses.replace(by_place, **{names[-1]: "changed"}), names[-1]) == "changed"


def test_an_exact_run_of_rules_from_the_cache_compiles_no_regular_expression_of_its_own(tmp_path: Path) -> None:
    # Each costs 0.1-0.2 ms; those of writing and analysing code are compiled where that is done. (fractions
    # compiles one of its own as it is imported.)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    seen = "import fractions, re\nbefore = set(re._cache)\n" + DICE_RUN.replace(
        'print(" ".join(sorted(sys.modules)))', "print([key[1] for key in set(re._cache) - before])")
    for _ in range(2):
        subprocess.run([sys.executable, "-c", seen], env=env, check=True, capture_output=True)
    compiled = subprocess.run([sys.executable, "-c", seen], env=env, check=True, capture_output=True, text=True)
    assert compiled.stdout.strip() == "[]"


def test_the_runtime_imports_nothing_of_the_front_end_but_the_records_beneath_it() -> None:
    shown = "import sys, fracas.interpreter.runtime.dice; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", shown], check=True, capture_output=True, text=True).stdout.split())
    front_end = {name for name in loaded if name.startswith("fracas.dsl.")}
    assert front_end == {"fracas.dsl.records", "fracas.dsl.cache", "fracas.dsl.limits"}
