"""Variants: `extends "base.rules"` and `override`, resolved into one list of declarations.

A variant starts from the declarations of the files it extends, then applies
its own: an `override` replaces the base declaration of the same name (a row
or kind override changes only the fields it lists), and a new declaration
must not silently shadow a base one. Examples are not inherited: they prove
their own file. Requires are: a variant adds its own to its base's.

`extends` paths are relative to the including file and must stay inside the
rules tree (the folder of the file first loaded); cycles are reported.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import Diagnostic, RulesError, SourceFile, did_you_mean, with_article
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.parse import parse
from fracas.dsl.reading import read_text
from fracas.dsl.records import field, record, replace


_KINDS_OF_DECL = {
    n.KindDecl: "kind",
    n.RowDecl: "row",
    n.TableDecl: "table",
    n.ParamDecl: "param",
    n.ChoiceDecl: "choice",
    n.OutcomeDecl: "outcome",
    n.ModifierDecl: "modifier",
    n.FnDecl: "fn",
}


def describe(decl: n.Decl) -> str:
    if isinstance(decl, n.StepDecl):
        return "action" if decl.is_action else "step"
    return _KINDS_OF_DECL.get(type(decl), "declaration")


def _key(decl: n.Decl) -> tuple[str, str]:
    # Kinds live in their own namespace: a kind and a row may share a name.
    return ("kind" if isinstance(decl, n.KindDecl) else "value", decl.name)


@record
class Loaded:
    """A file merged with the files it extends: what the checker checks, and the texts it was made of."""

    module: n.Module  # the merged module: title and decls of the whole chain
    sources: dict[str, SourceFile] = field(default_factory=dict)
    base_paths: tuple[str, ...] = ()


# The text of a file as an editor holds it, unsaved, or None to read the file itself.
OpenTexts = Callable[[Path], "str | None"]
# How a caller that parses the same files again and again parses one: (text, path shown) -> its tree.
Parser = Callable[[str, str], n.Module]


def load_module(text: str, path: str, limits: Limits = DEFAULT, from_file: bool = False,
                open_texts: OpenTexts | None = None, parsed: n.Module | None = None,
                parser: Parser | None = None) -> Loaded:
    """Parse a rules text and everything it extends, merged into one module.

    Trees of texts read from files are cached between runs (fracas.dsl.parse); the
    files a text extends are read from files, or taken from open_texts (a
    language server's open documents) when it has them. parsed: the text's
    tree, when the caller has parsed it already; parser: how the files it
    extends are parsed, when not as usual.
    """
    root = Path(path).resolve().parent
    return _load(text, path, Path(path).resolve(), root, (), limits, from_file, open_texts, parsed, parser)


def _load(text: str, shown: str, real: Path, root: Path, stack: tuple[Path, ...], limits: Limits,
          from_file: bool = True, open_texts: OpenTexts | None = None, parsed: n.Module | None = None,
          parser: Parser | None = None) -> Loaded:
    source = SourceFile(shown, text)
    if parsed is not None:
        module = parsed
    elif parser is not None:
        module = parser(text, shown)
    else:
        module = parse(text, shown, limits, cache=from_file)
    sources = {shown: source}
    if not module.extends:
        alone = [source.at(decl.pos, f"override of {describe(decl)} '{decl.name}' names nothing: this file extends "
                             "no other", "write extends \"base.rules\" at its top, or leave out 'override'")
                 for decl in module.decls if getattr(decl, "override", False)]
        if alone:
            raise RulesError(alone)
        return Loaded(module, sources)
    if len(stack) >= limits.extends_depth:
        raise RulesError([source.at(module.extends[0].pos, f"extends nests deeper than {limits.extends_depth} files",
                                    limits.hint("extends_depth"))])
    merged: list[n.Decl] = []
    origin: dict[tuple[str, str], str] = {}
    bases: list[str] = []
    extended: set[Path] = set()
    for extends in module.extends:
        target, target_shown = _resolve(extends, source, real, root, stack + (real,))
        if target in extended:
            raise RulesError([source.at(extends.pos, f"{target_shown} is extended twice",
                                        "leave out this extends: the file's declarations are here once already")])
        extended.add(target)
        held = open_texts(target) if open_texts is not None else None
        base_text = held if held is not None else read_text(target, target_shown,
                                                            source.at(extends.pos, "cannot extend"), limits)
        base = _load(base_text, target_shown, target, root, stack + (real,), limits, True, open_texts, None, parser)
        sources.update(base.sources)
        bases.append(target_shown)
        for decl in base.module.decls:
            if isinstance(decl, n.ExampleDecl):
                continue
            if isinstance(decl, n.Require):  # nameless: a base's requires all hold in the variant too
                merged.append(decl)
                continue
            key = _key(decl)
            if key in origin:
                raise RulesError([source.at(extends.pos, f"'{decl.name}' is declared both in {origin[key]} and in "
                                            f"{target_shown}", "a file may extend several bases only if they "
                                            "declare different names")])
            origin[key] = target_shown
            merged.append(decl)
    problems: list[Diagnostic] = []
    index = {_key(d): i for i, d in enumerate(merged)}
    for decl in module.decls:
        key = _key(decl)
        if isinstance(decl, (n.ExampleDecl, n.Require)):
            merged.append(decl)
        elif decl.override:
            if key not in index:
                names = [d.name for d in merged if describe(d) == describe(decl)]
                problems.append(source.at(decl.pos, f"override of {describe(decl)} '{decl.name}' names nothing in "
                                          f"{', '.join(bases)}", did_you_mean(decl.name, names)))
                continue
            base = merged[index[key]]
            if describe(base) != describe(decl):
                problems.append(source.at(decl.pos, f"'{decl.name}' is {with_article(describe(base))} in "
                                          f"{origin[key]}, not {with_article(describe(decl))}"))
                continue
            try:
                merged[index[key]] = _apply(base, decl, source)
            except RulesError as error:
                problems.extend(error.diagnostics)
        elif key in index:
            base = merged[index[key]]
            problems.append(source.at(decl.pos, f"'{decl.name}' is already declared in {origin[key]}:{base.pos.line}",
                                      f"write 'override {describe(decl)} {decl.name} ...' to change it"))
        else:
            merged.append(decl)
    if problems:
        raise RulesError(problems)
    result = n.Module(module.pos, path=shown, title=module.title, extends=module.extends, decls=tuple(merged))
    return Loaded(result, sources, tuple(bases))


def _resolve(extends: n.Extends, source: SourceFile, real: Path, root: Path,
             stack: tuple[Path, ...]) -> tuple[Path, str]:
    written = PurePosixPath(extends.path)
    if written.is_absolute() or extends.path.startswith("\\") or ":" in extends.path:
        raise RulesError([source.at(extends.pos, f"extends takes a path relative to this file, not '{extends.path}'")])
    if written.suffix != ".rules":
        raise RulesError([source.at(extends.pos, f"extends names a .rules file, not '{extends.path}'")])
    target = (real.parent / written).resolve()
    if not target.is_relative_to(root):
        raise RulesError([source.at(extends.pos, f"'{extends.path}' is outside the rules tree ({root})",
                                    "a variant may only extend rules files in its own folder or below")])
    if target in stack:
        chain = " -> ".join(p.name for p in stack + (target,))
        raise RulesError([source.at(extends.pos, f"extends makes a cycle: {chain}")])
    shown = str(Path(source.path).parent / written)
    return target, shown


def _apply(base: n.Decl, change: n.Decl, source: SourceFile) -> n.Decl:
    """A row or kind override changes only the fields it lists; anything else is replaced whole."""
    if isinstance(base, n.RowDecl) and isinstance(change, n.RowDecl):
        if change.kind != base.kind:
            raise RulesError([source.at(change.kind_pos, f"row '{base.name}' is {with_article(base.kind)}, "
                                                         f"not {with_article(change.kind)}")])
        fields = {f.name: f for f in base.fields}
        fields.update({f.name: f for f in change.fields})
        return replace(base, pos=change.pos, fields=tuple(fields.values()), override=True)
    if isinstance(base, n.KindDecl) and isinstance(change, n.KindDecl):
        fields = {f.name: f for f in base.fields}
        fields.update({f.name: f for f in change.fields})
        # A require has no name to override by: the variant's hold as well as the base's.
        return replace(base, pos=change.pos, fields=tuple(fields.values()), requires=base.requires + change.requires,
                       override=True)
    return change
