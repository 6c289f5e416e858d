"""Static facts about rules the executor can use: which statements may draw on chance."""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.walk import descendants


class ChanceAnalysis:
    """Whether evaluating a node may meet a chance primitive (dice, trials, fire...).

    A statement that cannot is applied to each state directly, without the exact
    engine's replay of outcomes; functions and modifiers are looked into.
    """

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self._callables: dict[str, bool] = {}

    def may_draw(self, node: Any) -> bool:
        # Not kept per node: a node is found again by its value only, which costs a walk over it anyway.
        return self._scan(node)

    def _callable(self, name: str) -> bool:
        if name not in self._callables:
            self._callables[name] = True  # assume chance while recursion is being looked into
            decl = self.rules.fns.get(name) or self.rules.modifiers.get(name)
            self._callables[name] = self._scan(decl) if decl is not None else False
        return self._callables[name]

    def _scan(self, root: Any) -> bool:
        for node in descendants(root):
            if isinstance(node, n.Dice):
                return True
            if isinstance(node, n.Call):
                signature = SIGNATURES.get(node.func)
                if signature is not None and signature.chance:
                    return True
                if (node.func in self.rules.fns or node.func in self.rules.modifiers) and self._callable(node.func):
                    return True
        return False
