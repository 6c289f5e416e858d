"""Records: dataclasses whose methods are written once for every class of a shape, made without dataclasses.

Python 3.11's dataclass compiles each method it writes for each class on its
own (__init__, __repr__, __eq__, __hash__, and for a frozen class
__setattr__ and __delattr__): 0.2-0.6 ms a class. With a hundred classes that
was most of the time a fresh process took to import fracas, more than the
exact odds of a dice pool took to compute. Importing dataclasses itself (and
inspect, which it imports) took 7-12 ms more of every process, more than all
of fracas's records.

A record has what a dataclass has: its fields (this module's `field`, or
dataclasses.field, with dataclass's options and defaults), slots if asked,
match arguments, and the methods dataclass would write, taken from here. Its
repr and a frozen record's refusal of assignment are one function each for
every record. Its __init__, __eq__ and __hash__ are made when first used,
from code compiled once for every shape (how many fields, which are
parameters, which have defaults or default factories) and renamed to the
class's own fields; the code of each shape is kept in the user's cache, as
Python keeps a module's bytecode, so that a process compiles none.

`fields` and `replace` here are dataclasses' for records. What dataclasses
reads of a class (`__dataclass_fields__`, for dataclasses.fields, replace and
asdict, cattrs and the tests; `__dataclass_params__`, for a dataclass made
from a record) is made when first read, importing dataclasses then. A record
refuses itself what dataclass would refuse (a changeable record inheriting
from a frozen one, a mutable default); keyword-only fields, ClassVar and
InitVar are refused too.
"""

from __future__ import annotations

import atexit
import functools
import marshal
import reprlib
import sys
from collections.abc import Callable
from itertools import chain
from operator import attrgetter
from types import CodeType, FunctionType, MappingProxyType, MemberDescriptorType
from typing import Any, TypeVar, overload

from fracas.dsl import cache

C = TypeVar("C", bound=type)


@overload
def record(cls: C, /) -> C: ...


@overload
def record(*, frozen: bool = ..., slots: bool = ..., eq: bool = ..., unsafe_hash: bool = ...) -> Callable[[C], C]: ...


def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True,
           unsafe_hash: bool = False) -> Any:
    """A dataclass with these options, its methods shared with every other record (see the module's docstring).

    Takes dataclass's options of the same names, with dataclass's meaning; a
    record's fields may have defaults, default factories, and be left out of
    __init__, of comparison, of the hash or of the repr, as a dataclass's may.
    """

    def make(cls: C) -> C:
        return _make(cls, frozen, slots, eq, unsafe_hash)

    return make if cls is None else make(cls)


def _make(cls: C, frozen: bool, slots: bool, eq: bool, unsafe_hash: bool) -> C:
    own = dict(cls.__dict__)
    every = _fields_of(cls)
    made: Any = _slotted(cls, every) if slots else cls
    made._record_field_list = every
    made.__dataclass_fields__ = _FromDataclasses(functools.partial(_dataclass_fields, every=every))
    made.__dataclass_params__ = _FromDataclasses(functools.partial(
        _dataclass_params, eq=eq, frozen=frozen, unsafe_hash=unsafe_hash, slots=slots))
    if "__match_args__" not in own:
        made.__match_args__ = tuple(f.name for f in every if f.init)
    if not cls.__doc__:
        made.__doc__ = f"{cls.__name__}({', '.join(f.name for f in every if f.init)})"
    for base in made.__mro__[1:]:  # as dataclass refuses, of a base that is a record or a dataclass
        if _frozen_of(base) not in (None, frozen):
            raise TypeError(f"cannot inherit {'' if frozen else 'non-'}frozen dataclass from a "
                            f"{'non-' if frozen else ''}frozen one")
    made._record_frozen = frozen
    if "__init__" not in own:
        _check_order(made, every)
        made.__init__ = _FirstUse(made, "__init__", functools.partial(_init, every=every, frozen=frozen))
    if "__repr__" not in own:
        made._record_shown = tuple(f.name for f in every if f.repr)
        made.__repr__ = _repr
    if eq and "__eq__" not in own:
        made.__eq__ = _FirstUse(made, "__eq__", functools.partial(_eq, names=[f.name for f in every if f.compare]))
    written_hash = own.get("__hash__", MISSING)  # None where the class wrote __eq__ and Python took its hash away
    explicit_hash = not (written_hash is MISSING or (written_hash is None and "__eq__" in own))
    if unsafe_hash or (eq and frozen and not explicit_hash):
        if explicit_hash:
            raise TypeError(f"{cls.__name__}: cannot overwrite attribute __hash__")
        hashed = [f.name for f in every if (f.compare if f.hash is None else f.hash)]
        made.__hash__ = _FirstUse(made, "__hash__", functools.partial(_hash, names=hashed))
    elif eq and not explicit_hash:
        made.__hash__ = None  # equal by value but changeable: no hash, as dataclass does
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"{cls.__name__}: a frozen record keeps its own __setattr__ and __delattr__")
        made._record_class, made._record_fields = made, frozenset(f.name for f in every)
        made.__setattr__ = _refuse_assignment
        made.__delattr__ = _refuse_deletion
        if slots and not own.keys() & {"__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"}:
            # Pickle's and copy's own way with slots sets each with setattr, which a frozen record refuses.
            names = made._record_names = [f.name for f in every]
            made.__setstate__ = _set_state
            if "__init__" in own or hasattr(made, "__post_init__") or not all(f.init for f in every):
                made.__getstate__ = _state
            else:  # rebuilt through __init__, its fields as its arguments: the quickest (the parse cache's nodes)
                made._record_arguments = staticmethod(_values_of(names))
                made.__reduce__ = _rebuilt
    return made


_PSEUDO_FIELDS = ("ClassVar", "InitVar", "KW_ONLY")


class _Missing:
    """No default: dataclasses' MISSING, for records."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


_NO_METADATA: Any = MappingProxyType({})


class Field:
    """One field of a record, with dataclass's options: what dataclasses.Field holds of it."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata",
                 "kw_only")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True,
                 hash: bool | None = None, compare: bool = True, metadata: Any = None, kw_only: bool = False):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name: str = ""
        self.type: Any = None
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.hash, self.compare = init, repr, hash, compare
        self.metadata = _NO_METADATA if metadata is None else MappingProxyType(metadata)  # read-only, as dataclass's
        self.kw_only = kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r})"

    def __set_name__(self, owner: type, name: str) -> None:
        # Python tells the field, not its default, the name it is written under: a default that is a descriptor
        # is told it here, as by dataclasses.Field.
        set_name = getattr(type(self.default), "__set_name__", None)
        if set_name is not None:
            set_name(self.default, owner, name)


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True,
          hash: bool | None = None, compare: bool = True, metadata: Any = None) -> Any:
    """A record field's options, as dataclasses.field takes them (a record takes no keyword-only fields)."""
    return Field(default, default_factory, init, repr, hash, compare, metadata)


def fields(record_or_class: Any) -> tuple[Field, ...]:
    """A record's fields, in order, as dataclasses.fields gives a dataclass's."""
    found = getattr(record_or_class, "_record_field_list", None)
    if found is None:
        raise TypeError("must be called with a record type or instance")
    return found  # type: ignore[no-any-return]


def is_record(value: Any) -> bool:
    """Whether a value is a record (an instance, not its class)."""
    return not isinstance(value, type) and hasattr(type(value), "_record_field_list")


def replace(record: Any, /, **changes: Any) -> Any:
    """A new record of the same class with these fields changed, as dataclasses.replace makes one."""
    for f in fields(record):
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(record, f.name)
    return record.__class__(**changes)


def _fields_of(cls: type) -> tuple[Field, ...]:
    """cls's fields as dataclass finds them: its bases' first (a field written again keeps its place),
    then its own annotations, in order; the class attributes that held their options hold the plain defaults."""
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        for f in _own_fields(base):
            found[f.name] = f
    written = cls.__dict__.get("__annotations__", {})
    for name, annotation in written.items():
        # Over-cautious (a word anywhere in the annotation), and blind to a name imported under another.
        if any(word in str(annotation) for word in _PSEUDO_FIELDS):
            raise TypeError(f"{cls.__name__}.{name}: a record takes no ClassVar, InitVar or KW_ONLY")
        value = getattr(cls, name, MISSING)  # a default its class inherits too, as dataclass reads it
        if isinstance(value, MemberDescriptorType):  # a slotted base's field: no default
            value = MISSING
        f = _field_from(value)
        f.name, f.type = name, annotation
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        found[name] = f
        if value is not f.default:  # options written with field(): the class attribute becomes the default
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, value in cls.__dict__.items():
        if _is_field(value) and name not in written:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    return tuple(found.values())


def _own_fields(base: type) -> tuple[Field, ...]:
    """The fields of a base that is a record, or a dataclass made by @dataclass itself; none of another."""
    if "_record_field_list" in base.__dict__:
        return base.__dict__["_record_field_list"]  # type: ignore[no-any-return]
    if "__dataclass_fields__" not in base.__dict__:
        return ()
    import dataclasses  # imported already: @dataclass made base

    found = []
    for theirs in dataclasses.fields(base):
        mine = _field_from(theirs)
        mine.name, mine.type = theirs.name, theirs.type
        found.append(mine)
    return tuple(found)


def _frozen_of(base: type) -> bool | None:
    """Whether a base that is a record or a dataclass is frozen; None for another."""
    if "_record_frozen" in base.__dict__:
        return base.__dict__["_record_frozen"]  # type: ignore[no-any-return]
    if "__dataclass_params__" in base.__dict__:
        return base.__dict__["__dataclass_params__"].frozen  # type: ignore[no-any-return]
    return None


def _is_field(value: Any) -> bool:
    kind = type(value)
    return kind is Field or (kind.__name__ == "Field" and kind.__module__ == "dataclasses")


def _field_from(value: Any) -> Field:
    """A field's options from what its class attribute holds: this module's field(), dataclasses.field() (its
    MISSING made ours), a plain default, or nothing."""
    kind = type(value)
    if kind is Field:
        return value  # type: ignore[no-any-return]
    if kind.__name__ == "Field" and kind.__module__ == "dataclasses":
        theirs = sys.modules["dataclasses"].MISSING  # imported: its field() made this
        return Field(MISSING if value.default is theirs else value.default,
                     MISSING if value.default_factory is theirs else value.default_factory,
                     value.init, value.repr, value.hash, value.compare, value.metadata, value.kw_only is True)
    return Field(value)


def _slotted(cls: type, every: tuple[Field, ...]) -> type:
    """cls made again with a slot for each field its bases have no slot for, as dataclass(slots=True) makes it."""
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    body = dict(cls.__dict__)
    names = tuple(f.name for f in every)
    inherited = set(chain.from_iterable(_slots_of(base) for base in cls.__mro__[1:-1]))
    body["__slots__"] = tuple(name for name in names if name not in inherited)
    for name in names:
        body.pop(name, None)  # a default: __init__ sets it
    body.pop("__dict__", None)
    body.pop("__weakref__", None)  # the old class's
    qualname = getattr(cls, "__qualname__", None)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    if qualname is not None:
        made.__qualname__ = qualname
    return made


def _slots_of(cls: type) -> tuple[str, ...]:
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        return ()
    return (slots,) if isinstance(slots, str) else tuple(slots)


class _FromDataclasses:
    """What dataclasses reads of a record's class, made when first read, by dataclasses itself (make_dataclass)
    and so importing it then and not before: `__dataclass_fields__` (dataclasses.Field objects of its fields,
    which dataclasses.fields, replace and asdict, and cattrs, read) and `__dataclass_params__` (its options,
    which @dataclass reads of every base of a class it makes)."""

    def __init__(self, make: Callable[[Any], Any]):
        self.make = make
        self.made: Any = MISSING

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if self.made is MISSING:
            import dataclasses

            self.made = self.make(dataclasses)
        return self.made


def _dataclass_fields(dataclasses: Any, every: tuple[Field, ...]) -> dict[str, Any]:
    def option(value: Any) -> Any:
        return dataclasses.MISSING if value is MISSING else value

    specs = [(f.name, f.type, dataclasses.field(
        default=option(f.default), default_factory=option(f.default_factory), init=f.init, repr=f.repr,
        hash=f.hash, compare=f.compare, metadata=f.metadata)) for f in every]
    made = dataclasses.make_dataclass("fields", specs, init=False, repr=False, eq=False, match_args=False)
    return made.__dataclass_fields__


def _dataclass_params(dataclasses: Any, **options: bool) -> Any:
    return dataclasses.make_dataclass("params", [], **options).__dataclass_params__


def _values_of(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes of a record, as a dataclass's __eq__ and __hash__ build it."""
    if len(names) == 1:
        one = attrgetter(names[0])  # gives the bare value, not a tuple of one
        return lambda made: (one(made),)
    return attrgetter(*names) if names else lambda made: ()


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
    return f"{self.__class__.__qualname__}({shown})"


def _refuse_assignment(self: Any, name: str, value: Any) -> None:
    cls = type(self)
    if cls is cls._record_class or name in cls._record_fields:  # a plain subclass may add attributes of its own
        from dataclasses import FrozenInstanceError  # imported on the way to an error only (see the module's doc)

        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    super(cls._record_class, self).__setattr__(name, value)


def _refuse_deletion(self: Any, name: str) -> None:
    cls = type(self)
    if cls is cls._record_class or name in cls._record_fields:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")
    super(cls._record_class, self).__delattr__(name)


def _rebuilt(self: Any) -> tuple[Any, ...]:
    cls = self.__class__
    if cls is self._record_class:
        return cls, self._record_arguments(self)
    # A plain subclass may write an __init__ taking other arguments: made without it, as dataclass's pickling does.
    import copyreg

    return copyreg.__newobj__, (cls,), _state(self)


def _state(self: Any) -> list[Any]:
    return [getattr(self, name) for name in self._record_names]


def _set_state(self: Any, state: list[Any]) -> None:
    for name, value in zip(self._record_names, state):
        object.__setattr__(self, name, value)


# ---- methods compiled once for each shape ----------------------------------------------


class _FirstUse:
    """A record's __init__, __eq__ or __hash__ until first wanted (or its signature read): made then.

    Most records a process imports it never makes or compares (the language
    server's in a run of odds, most nodes in a small ruleset): their methods
    are never made. Reading the method from the class (`inspect.signature`
    does) makes it too.
    """

    __slots__ = ("cls", "name", "make")

    def __init__(self, cls: type, name: str, make: Callable[[type], FunctionType]) -> None:
        self.cls, self.name, self.make = cls, name, make

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        method = self.make(self.cls)
        type.__setattr__(self.cls, self.name, method)  # in its place: every later call goes straight to it
        return method if instance is None else method.__get__(instance, owner)


def _check_order(cls: type, every: tuple[Field, ...]) -> None:
    defaulted = False
    for f in every:
        if f.name == "self":
            raise TypeError(f"{cls.__name__}: a record's field may not be named 'self'")
        if f.kw_only is True:
            raise TypeError(f"{cls.__name__}.{f.name}: a record takes no keyword-only fields")
        if not f.init:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"{cls.__name__}: the field {f.name!r} without a default follows one with a default")


class _Factory:
    """A parameter's default where its field's default comes from a factory, as dataclass's."""

    def __repr__(self) -> str:
        return "<factory>"  # as a signature shows it


_FACTORY = _Factory()
_SET = "_record_set"  # a global of every __init__: a field may be named so too, as a field's name is a constant


def _init(cls: type, every: tuple[Field, ...], frozen: bool) -> FunctionType:
    """The __init__ dataclass would write for these fields: its code the one compiled for their shape."""
    params: list[str] = []
    defaults: list[Any] = []
    lines: list[str] = []
    names: dict[str, str] = {}  # stand-in -> a field's name
    known: dict[str, Any] = {_SET: object.__setattr__, "_record_factory": _FACTORY}
    for number, f in enumerate(every):
        attribute = f"_record_a{number}"
        names[attribute] = f.name
        if f.init:
            param = f"_record_p{number}"
            names[param] = f.name
            params.append(param)
            if f.default is not MISSING:
                defaults.append(f.default)
                value = param
            elif f.default_factory is not MISSING:
                defaults.append(_FACTORY)
                known[f"_record_f{number}"] = f.default_factory
                value = f"_record_f{number}() if {param} is _record_factory else {param}"
            else:
                value = param
        elif f.default is not MISSING:
            known[f"_record_d{number}"] = f.default
            value = f"_record_d{number}"
        elif f.default_factory is not MISSING:
            known[f"_record_f{number}"] = f.default_factory
            value = f"_record_f{number}()"
        else:
            continue  # set later, if ever, as with dataclass
        lines.append(f"    {_SET}(self, {attribute!r}, {value})" if frozen else f"    self.{attribute} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    source = "\n".join([f"def __init__(self, {', '.join(params)}):", *lines, "    pass"])
    return _method(cls, source, names, known, tuple(defaults))


def _eq(cls: type, names: list[str]) -> FunctionType:
    """The __eq__ dataclass would write: equal when of the same class, with equal fields compared."""
    return _method(cls, _eq_source(len(names)), dict(zip(_attributes(len(names)), names)))


def _hash(cls: type, names: list[str]) -> FunctionType:
    """The __hash__ dataclass would write: the hash of the tuple of the fields hashed."""
    return _method(cls, _hash_source(len(names)), dict(zip(_attributes(len(names)), names)))


@functools.cache
def _attributes(count: int) -> tuple[str, ...]:
    """Stand-ins for the names of this many fields, in order."""
    return tuple(f"_record_a{number}" for number in range(count))


@functools.cache
def _eq_source(count: int) -> str:
    mine, theirs = ("".join(f"{who}.{name}, " for name in _attributes(count)) for who in ("self", "other"))
    return (f"def __eq__(self, other):\n    if other.__class__ is self.__class__:\n"
            f"        return ({mine}) == ({theirs})\n    return NotImplemented")


@functools.cache
def _hash_source(count: int) -> str:
    return f"def __hash__(self):\n    return hash(({''.join(f'self.{name}, ' for name in _attributes(count))}))"


def _method(cls: type, source: str, names: dict[str, str], known: dict[str, Any] | None = None,
            defaults: tuple[Any, ...] = ()) -> FunctionType:
    """The function this source defines, its stand-in names replaced by a record's own."""
    code = _code_for(source)
    qualname = f"{cls.__qualname__}.{code.co_name}"
    rename = names.get  # a stand-in is a local, an attribute's name, or (set by object.__setattr__) a constant
    code = code.replace(co_varnames=tuple(map(rename, code.co_varnames, code.co_varnames)),
                        co_names=tuple(map(rename, code.co_names, code.co_names)),
                        co_consts=tuple(map(rename, code.co_consts, code.co_consts)), co_qualname=qualname)
    method = FunctionType(code, known if known is not None else {}, code.co_name, defaults or None)
    method.__qualname__ = qualname
    method.__module__ = cls.__module__
    return method


# ---- the code of each shape, kept -------------------------------------------------------

# A method's source, written with stand-in names -> its code: read from the cache when first
# wanted, and kept there again at exit if this process compiled more.
_compiled: dict[str, CodeType] | None = None
compiled_here = 0  # shapes this process compiled itself


def _code_for(source: str) -> CodeType:
    global _compiled, compiled_here
    if _compiled is None:
        _compiled = _kept()
    code = _compiled.get(source)
    if code is None:
        made: dict[str, Any] = {}
        exec(source, {}, made)
        (function,) = made.values()
        code = _compiled[source] = function.__code__
        if not compiled_here:
            atexit.register(_keep)
        compiled_here += 1
    return code


def _kept_name() -> str:
    # Code objects are good only for the Python that made them.
    made_by = cache.fingerprint(f"{sys.version}\0{marshal.version}".encode()).hexdigest()[:32]
    return f"records-{made_by}.marshal"


_CHECK = 32  # bytes of the digest of the marshalled code, written before it


def _kept() -> dict[str, CodeType]:
    data = cache.load(_kept_name())
    # Damaged code would run: a file whose digest is not that of its code is never unmarshalled.
    if data is None or cache.fingerprint(data[_CHECK:]).digest()[:_CHECK] != data[:_CHECK]:
        return {}
    try:
        found = marshal.loads(data[_CHECK:])
    except Exception:  # written by a fracas before this one, say: compiled afresh
        return {}
    if not isinstance(found, dict):
        return {}
    return {source: code for source, code in found.items() if isinstance(source, str) and isinstance(code, CodeType)}


def _keep() -> None:
    # What other processes kept meanwhile stays too.
    data = marshal.dumps({**_kept(), **(_compiled or {})})
    cache.store(_kept_name(), cache.fingerprint(data).digest()[:_CHECK] + data)
