"""Records behave as the dataclasses they stand for: built, compared, hashed, shown, refused and pickled alike."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import pathlib
import pickle
import subprocess
import sys
import types
import typing

import pytest

from fracas.dsl import records
from fracas.dsl.records import record


def _pair(**options):
    """The same class body twice: once as a dataclass, once as a record with the same options."""

    def body():
        class Thing:
            """A thing with a few kinds of field."""

            name: str
            size: int = 3
            tags: list = dataclasses.field(default_factory=list)
            note: str = dataclasses.field(default="", compare=False, repr=False)

        return Thing

    return dataclasses.dataclass(**options)(body()), record(**options)(body())


OPTIONS = [{}, {"frozen": True}, {"frozen": True, "slots": True}, {"slots": True}, {"eq": False},
           {"unsafe_hash": True}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_record_is_built_shown_and_compared_as_its_dataclass_is(options):
    theirs, mine = _pair(**options)
    for args, kwargs in [(("a",), {}), (("a", 5), {"note": "x"}), ((), {"name": "b", "tags": [1]})]:
        a, b = theirs(*args, **kwargs), mine(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert (a == theirs(*args, **kwargs)) == (b == mine(*args, **kwargs))
    assert inspect.signature(theirs).parameters.keys() == inspect.signature(mine).parameters.keys()
    assert (theirs.__hash__ is None) == (mine.__hash__ is None)


def test_fields_left_out_of_comparison_do_not_make_records_unequal():
    _, Thing = _pair(frozen=True)
    assert Thing("a", tags=(), note="x") == Thing("a", tags=(), note="y")
    assert hash(Thing("a", tags=(), note="x")) == hash(Thing("a", tags=(), note="y"))


def test_a_frozen_record_hashes_as_its_dataclass_does():
    theirs, mine = _pair(frozen=True, slots=True)
    assert hash(theirs("a", 4, ())) == hash(mine("a", 4, ()))


def test_a_default_factory_gives_each_record_its_own_value():
    _, Thing = _pair()
    first, second = Thing("a"), Thing("b")
    first.tags.append(1)
    assert second.tags == []


def test_a_record_equal_by_value_and_changeable_has_no_hash():
    _, Thing = _pair()
    with pytest.raises(TypeError):
        hash(Thing("a"))


@pytest.mark.parametrize("slots", [False, True])
def test_a_frozen_record_refuses_assignment_and_deletion(slots):
    _, Thing = _pair(frozen=True, slots=slots)
    thing = Thing("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        thing.size = 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        del thing.size


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_record_survives_pickling_and_copying(options):
    _, Thing = _pair(**options)
    globals()["Thing"] = Thing  # pickle finds a class by its module and name
    Thing.__qualname__ = "Thing"
    thing = Thing("a", 5, [1], "x")
    for again in (pickle.loads(pickle.dumps(thing)), copy.deepcopy(thing), dataclasses.replace(thing, size=6)):
        assert (again.name, again.tags, again.note) == ("a", [1], "x")


def test_post_init_runs_after_the_fields_are_set():
    @record(frozen=True)
    class Checked:
        low: int
        high: int

        def __post_init__(self) -> None:
            if self.low > self.high:
                raise ValueError("low above high")

    assert Checked(1, 2).high == 2
    with pytest.raises(ValueError):
        Checked(3, 2)


def test_a_field_left_out_of_init_takes_its_default_or_stays_unset():
    @record(slots=True)
    class Counted:
        name: str
        seen: int = dataclasses.field(default=0, init=False)
        cached: int = dataclasses.field(init=False)

    made = Counted("a")
    assert made.seen == 0 and not hasattr(made, "cached")
    assert list(inspect.signature(Counted).parameters) == ["name"]


def test_a_hash_the_class_wrote_itself_is_kept():
    @record(slots=True)
    class Named:
        name: str

        def __hash__(self) -> int:
            return 7

    assert hash(Named("a")) == 7 and Named("a") == Named("a")


def test_records_of_the_same_shape_share_one_compiled_init_under_their_own_names():
    @record
    class Left:
        a: int
        b: int = 1

    @record
    class Right:
        x: int
        y: int = 1

    Left.__init__, Left.__eq__
    compiled = records.compiled_here
    assert Right(2).y == 1 and Right(x=3, y=4).x == 3 and Right(2) == Right(2, 1)
    assert records.compiled_here == compiled
    assert Right.__init__.__qualname__.endswith("Right.__init__")


def test_a_field_without_a_default_after_one_with_a_default_is_refused():
    with pytest.raises(TypeError):
        @record
        class Wrong:
            a: int = 1
            b: int


def test_a_record_without_a_docstring_is_documented_by_its_fields():
    @record
    class Plain:
        a: int
        b: int = 1

    assert Plain.__doc__ == "Plain(a, b)"


def test_a_record_s_init_is_made_when_first_wanted_and_its_signature_is_readable_before():
    @record(frozen=True)
    class Late:
        a: int
        b: int = 2

    assert not isinstance(vars(Late)["__init__"], types.FunctionType)
    assert str(inspect.signature(Late)) == "(a, b=2)"
    assert isinstance(vars(Late)["__init__"], types.FunctionType)
    assert Late(1) == Late(1, 2)


def test_a_record_s_fields_and_class_keep_their_written_annotations():
    theirs, mine = _pair(frozen=True, slots=True)
    assert [f.type for f in dataclasses.fields(mine)] == [f.type for f in dataclasses.fields(theirs)] == [
        "str", "int", "list", "str"]
    assert mine.__annotations__ == theirs.__annotations__
    assert typing.get_type_hints(mine) == {"name": str, "size": int, "tags": list, "note": str}


def test_a_class_variable_or_an_init_only_variable_is_refused():
    with pytest.raises(TypeError, match="ClassVar"):
        @record
        class Counted:
            total: typing.ClassVar[int] = 0


MAKES_A_RECORD = """
from fracas.dsl import records
from fracas.dsl.records import record

@record(frozen=True)
class Odd:
    a: int
    b: int = 1
    c: int = 2
    d: int = 3
    e: int = 4
    f: int = 5
    g: int = 6
    h: int = 7
    i: int = 8
    j: int = 9
    k: int = 10
    l: int = 11
    m: int = 12
    n: int = 13
    o: int = 14
    p: int = 15
    q: int = 16

assert Odd(0).q == 16
print(records.compiled_here)
"""


def _compiled_in_a_fresh_process(cache: pathlib.Path) -> int:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-c", MAKES_A_RECORD], env=env, capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_the_code_of_a_shape_compiled_in_one_process_is_kept_for_the_next(tmp_path):
    assert _compiled_in_a_fresh_process(tmp_path) >= 1
    assert _compiled_in_a_fresh_process(tmp_path) == 0


def test_kept_code_that_cannot_be_read_is_compiled_afresh(tmp_path):
    _compiled_in_a_fresh_process(tmp_path)
    for kept in (tmp_path / "fracas").glob("records-*"):
        kept.write_bytes(b"not marshalled code")
    assert _compiled_in_a_fresh_process(tmp_path) >= 1
    assert _compiled_in_a_fresh_process(tmp_path) == 0


def test_kept_code_whose_check_passes_but_does_not_unmarshal_is_compiled_afresh(tmp_path):
    from fracas.dsl.cache import fingerprint

    _compiled_in_a_fresh_process(tmp_path)
    for kept in (tmp_path / "fracas").glob("records-*"):
        damaged = b"\xe3" + kept.read_bytes()[40:60]
        kept.write_bytes(fingerprint(damaged).digest()[:32] + damaged)
    assert _compiled_in_a_fresh_process(tmp_path) >= 1


def test_a_frozen_slotted_record_with_post_init_is_copied_without_running_it_again():
    runs = []

    @record(frozen=True, slots=True)
    class Counted:
        a: int

        def __post_init__(self) -> None:
            runs.append(self.a)

    made = Counted(1)
    assert copy.copy(made) == made and copy.deepcopy(made) == made
    assert runs == [1]


def test_a_frozen_slotted_record_with_an_init_of_its_own_can_be_copied():
    @record(frozen=True, slots=True)
    class Doubled:
        a: int

        def __init__(self, half: int) -> None:
            object.__setattr__(self, "a", 2 * half)

    assert copy.copy(Doubled(3)).a == 6


def test_a_plain_subclass_of_a_frozen_record_may_add_attributes_but_not_change_fields():
    _, Thing = _pair(frozen=True)

    class Noted(Thing):
        pass

    noted = Noted("a")
    noted.extra = 1
    assert noted.extra == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        noted.size = 2


@pytest.mark.parametrize("made_by", ["record", "dataclass"])
def test_a_changeable_record_may_not_inherit_from_a_frozen_one(made_by):
    theirs, mine = _pair(frozen=True)
    Thing = mine if made_by == "record" else theirs
    with pytest.raises(TypeError, match="non-frozen"):
        @record
        class Loose(Thing):
            extra: int = 0


def test_a_keyword_only_field_is_refused():
    with pytest.raises(TypeError, match="keyword-only"):
        @record
        class Named:
            a: int = dataclasses.field(default=0, kw_only=True)


def test_a_default_factory_is_shown_as_dataclass_shows_it():
    theirs, mine = _pair()
    assert str(inspect.signature(mine)) == "(name, size=3, tags=<factory>, note='')"
    assert "tags: 'list' = <factory>" in str(inspect.signature(theirs))


IMPORT_WITHOUT_A_HOME = """
import os, pwd
os.environ.pop("HOME", None)
os.environ.pop("XDG_CACHE_HOME", None)
def nobody(uid):
    raise KeyError(uid)
pwd.getpwuid = nobody
from fracas import dsl
rules = dsl.loads('rules "dice"\\noutcome total: int = 0\\naction throw() {\\n    total = roll(1, 6)\\n}\\n')
print("loaded")
"""


def test_fracas_imports_and_runs_where_no_home_folder_can_be_found():
    done = subprocess.run([sys.executable, "-c", IMPORT_WITHOUT_A_HOME], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded"


def test_a_process_that_compiles_no_shape_writes_nothing_at_exit(tmp_path):
    _compiled_in_a_fresh_process(tmp_path)  # keeps the shapes it compiled
    kept = {path: path.stat().st_mtime_ns for path in (tmp_path / "fracas").iterdir()}
    assert _compiled_in_a_fresh_process(tmp_path) == 0
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "fracas").iterdir()} == kept


def test_a_field_annotated_again_without_a_value_keeps_the_default_its_class_inherits():
    @record
    class Sized:
        size: int = 3

    @record
    class Again(Sized):
        size: int

    assert Again().size == 3
    assert str(inspect.signature(Again)) == "(size=3)"


def test_a_field_annotated_again_over_a_slotted_record_has_no_default():
    @record(slots=True)
    class Sized:
        size: int = 3

    @record(slots=True)
    class Again(Sized):
        size: int

    assert str(inspect.signature(Again)) == "(size)"
    assert [f.default for f in dataclasses.fields(Again)] == [dataclasses.MISSING]


def test_a_dataclass_may_extend_a_record_and_keeps_its_fields_first():
    _, Thing = _pair(frozen=True)

    @dataclasses.dataclass(frozen=True)
    class Weighed(Thing):
        weight: int = 0

    assert [f.name for f in dataclasses.fields(Weighed)] == ["name", "size", "tags", "note", "weight"]
    assert Weighed("a", weight=2).size == 3


def test_a_changeable_dataclass_may_not_extend_a_frozen_record():
    _, Thing = _pair(frozen=True)
    with pytest.raises(TypeError, match="non-frozen"):
        @dataclasses.dataclass
        class Loose(Thing):
            extra: int = 0


def test_a_record_may_extend_a_dataclass_and_keeps_its_fields_first():
    Thing, _ = _pair()

    @record
    class Weighed(Thing):
        weight: int = 0

    assert [f.name for f in records.fields(Weighed)] == ["name", "size", "tags", "note", "weight"]
    assert Weighed("a", 4).size == 4


def test_a_field_s_metadata_is_a_read_only_mapping_empty_where_none_was_given():
    @record
    class Noted:
        length: int = records.field(default=0, metadata={"unit": "m"})
        width: int = 0

    length, width = records.fields(Noted)
    assert isinstance(length.metadata, types.MappingProxyType) and length.metadata["unit"] == "m"
    assert width.metadata == {}


def test_a_plain_subclass_of_a_frozen_slotted_record_with_an_init_of_its_own_can_be_copied():
    @record(frozen=True, slots=True)
    class Pair:
        left: int
        right: int

    class Twins(Pair):
        def __init__(self, both: int) -> None:
            super().__init__(both, both)

    for again in (copy.copy(Twins(3)), copy.deepcopy(Twins(3))):
        assert type(again) is Twins and (again.left, again.right) == (3, 3)


def test_a_default_written_with_field_is_told_its_name_as_a_descriptor_is():
    class Named:
        def __set_name__(self, owner: type, name: str) -> None:
            self.name = name

    @record
    class Holder:
        held: Named = records.field(default=Named())

    assert Holder.held.name == "held"
