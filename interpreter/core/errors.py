"""Errors raised while running rules: always located at the rule that caused them."""

from __future__ import annotations

from fracas.dsl.diagnostics import Diagnostic
from fracas.dsl.nodes import Pos


# What a stop at a limit of the exact engine suggests: sampling instead, and for its states, a higher limit.
SAMPLE_INSTEAD = "estimate by sampling instead (fracas odds --samples N)"
ESTIMATE_HINT = SAMPLE_INSTEAD + ", or raise the limit with --limit states=N"


class RunError(Exception):
    """A rule could not be carried out (a field of none, a division by zero, a limit)."""

    wandering_told = False  # a limit met in a loop, said with what wanders there: a loop around it adds nothing

    def __init__(self, pos: Pos | None, message: str, hint: str = ""):
        super().__init__(message)
        self.pos = pos
        self.message = message
        self.hint = hint

    def __reduce__(self) -> tuple:
        # Made again from what it was made of, not from its text (an exception's args): a worker process sends
        # it back to the one that reports it.
        return (RunError, (self.pos, self.message, self.hint))


def too_many_states(pos: Pos | None, limit: int) -> RunError:
    """The stop of the exact engine where a block's states (or the combinations a state carries) pass the limit."""
    return RunError(pos, f"the exact engine holds more than {limit} states here", ESTIMATE_HINT)


class ScenarioError(Exception):
    """A scenario (TOML file, example arguments or --set flag) does not fit the rules."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.format() for d in diagnostics))
        self.diagnostics = diagnostics

    def __reduce__(self) -> tuple:
        return (ScenarioError, (self.diagnostics,))  # as RunError: a worker's is read back by the parent
