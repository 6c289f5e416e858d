"""What a newcomer writes that fracas does not have, and what to write instead today.

One table for the parser (a word that cannot start what it starts) and the
checker (a name or function that is nowhere declared). When the language
gains one of these constructs, delete its entry: tests/test_missing_constructs.py
fails while a word here is also a word of the grammar, as a reminder. The
entry about `return` is about where the keyword cannot stand: outside a step.
"""

from __future__ import annotations

from fracas.dsl.records import record


@record(frozen=True)
class Missing:
    """What to tell a newcomer who wrote a construct fracas lacks: why it fails, and what to write instead."""

    message: str
    hint: str


# Words of other languages, as the parser meets them where a statement or declaration starts. Only
# words no rules would name a thing by: a field called `def` (defence) must not be told about `fn`.
WORDS: dict[str, Missing] = {
    "continue": Missing("fracas has no 'continue'", "guard the rest of the loop's body with an 'if'"),
    "elif": Missing("fracas writes 'else if', not 'elif'",
                    "} else if CONDITION { ... }, or in an expression: else if CONDITION then VALUE"),
    "elsif": Missing("fracas writes 'else if', not 'elsif'",
                    "} else if CONDITION { ... }, or in an expression: else if CONDITION then VALUE"),
    "elseif": Missing("fracas writes 'else if', not 'elseif'",
                    "} else if CONDITION { ... }, or in an expression: else if CONDITION then VALUE"),
    "switch": Missing("fracas has no 'switch'", "write if ... { } else if ... { } else { }, or look the value up in a table"),
    "function": Missing("fracas declares a function with 'fn'", "fn name(x: int) = x * 2, or fn name(x: int): int { ... return x * 2 }"),
    "var": Missing("fracas declares a local with 'let'", "let name = value"),
}

RETURN_OUTSIDE_A_STEP = Missing("'return' belongs inside a step or an action, where it ends the step",
                                "write it in a step's braces: step name() { ... return ... }")
STATEMENT_OUTSIDE_A_STEP = Missing("statements belong inside a step or an action",
                                   "write them in braces: action name() { ... }")
COLON_BLOCK = Missing("blocks are written in braces, not after ':'", "if CONDITION { ... } else { ... }")
SLICE = Missing("fracas has no slices: a list is indexed by one number",
                "take the items you need with a comprehension, as in [xs[i] for i in range(len(xs)) if i >= 1]")
RANGE_IN_FOR = Missing("a loop runs over a list, and 'a..b' is none: it bounds a test, as in x in 1..3",
                       "for i in range(3) runs i over 0, 1, 2; for i from 1 to 3, use i + 1 in the body")
CHAINED = Missing("comparisons do not chain: 'a < b < c' is written as two",
                  "a < b and b < c; for whole numbers within bounds, b in LOW..HIGH")
STEP_BY_ONE = Missing("fracas has no '{op}{op}'", "write {name} {op}= 1")
# Other languages' operators of two characters, each of which fracas has alone.
DOUBLED: dict[str, Missing] = {
    "/": Missing("fracas has no '//': '/' divides exactly",
                 "round the quotient as the rule says, floor(a / b); a comment starts with '#'"),
    "*": Missing("fracas has no power operator '**'", "multiply the number by itself, as in x * x * x"),
}
ONE_NUMBER_KEY_TABLE = Missing("a table has two keys: for one number, index a list of the values",
                               "[stunned, stunned, out, casualty][total - 7], its first item the value of the "
                               "lowest key")
DICE_WITHOUT_SIDES = Missing("'{written}' is no die: dice are written with their sides", "as 2d6 - 1, or 1d6 + 2")
ONE_KEY_TABLE = Missing("a table has two keys: for one, give its kind a field, which each row sets",
                        "kind ground { cost: number }, ground rough { cost 1.5 }, then g.cost")
SLASH_COMMENT = Missing("a comment starts with '#', not '//'", "# what this rule is for")
REMAINDER = Missing("fracas has no remainder operator '%'",
                    "a - floor(a / b) * b is what is left of a after b goes into it; a percentage is written "
                    "right after its number: 60%")
METHOD = Missing("fracas has no methods: '.{name}(...)' calls nothing",
                 "call a function with the value instead, as in len(xs) or sort(xs); language.md lists the builtins")

# Characters of other languages' operators.
CHARACTERS: dict[str, Missing] = {
    "&": Missing("fracas writes 'and', not '&&'", "a > 1 and b > 1"),
    "|": Missing("fracas writes 'or', not '||'", "a > 1 or b > 1"),
    "!": Missing("fracas writes 'not', not '!'", "not a, or a != b"),
    "^": Missing("fracas has no power operator '^'", "multiply the number by itself, as in x * x * x"),
    ";": Missing("fracas needs no ';': a statement ends where the next begins",
                 "write statements one a line, or side by side, without ';'"),
}

# Names the checker meets, declared nowhere.
NAMES: dict[str, str] = {
    "True": "write true",
    "False": "write false",
    "None": "write none",
    "null": "write none",
    "nil": "write none",
}

FUNCTIONS: dict[str, str] = {
    "print": "record what happened with an event: event name(values), shown by fracas run and explain",
    "log": "record what happened with an event: event name(values), shown by fracas run and explain",
}
