"""Limits on everything an untrusted rules or scenario file (or a flag) can make grow.

The defaults are far above what an honest rules file reaches; each can be
raised from the command line (`--limit name=N`) or the API (`Limits(...)`),
and every stop is a located error that names its limit.
"""

from __future__ import annotations

from fracas.dsl.records import fields, record


# Past these, Python's own recursion limit would stop a run before ours could say why.
# Past 4300 digits Python cannot even print a number; steps calling each other
# much deeper than 100 would reach Python's own recursion limit.
CEILINGS = {"nesting": 300, "digits": 4000, "call_depth": 100}


@record(frozen=True)
class Limits:
    """How far an untrusted file may make each thing grow before fracas stops it with a located error."""

    file_bytes: int = 2_000_000      # a rules or scenario file
    nesting: int = 150               # expressions and blocks inside each other
    extends_depth: int = 16          # files extending files
    count: int = 10_000              # dice, trials, shots or bodies in one call, and in a pool or volley fired
    loop_items: int = 10_000         # items of one for loop, passes of one while loop
    call_depth: int = 64             # functions and steps calling each other
    states: int = 200_000            # states the exact engine holds at once
    digits: int = 1000               # of a number, written or computed (a fraction: of either part)
    text_length: int = 100_000       # characters of a text a run makes (joined in a loop, say)
    samples: int = 1_000_000         # sampled runs asked for by --samples (minutes, not days)
    # Steps of one resolution: blocks run (per state, exactly), list items made, and in the exact engine
    # branches on draws and chance computed (long numbers cost more): about a microsecond each.
    work: int = 1_000_000

    def __post_init__(self) -> None:
        for name, ceiling in CEILINGS.items():
            if getattr(self, name) > ceiling:
                raise ValueError(f"the limit '{name}' can be at most {ceiling}, not {getattr(self, name)}")

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def hint(self, name: str) -> str:
        return f"the limit '{name}' is {getattr(self, name)}; raise it with --limit {name}=N if more is needed"


DEFAULT = Limits()
