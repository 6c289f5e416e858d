"""What a resolution may write, from the syntax: the outcomes an action or anything it calls assigns.

Reports tell an outcome that an action never sets apart from one that a
resolution left certain: a starting value that nothing assigns is no result.
"""

from __future__ import annotations

from fracas.dsl import nodes as n
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.walk import descendants


def outcomes_set_by(rules: Ruleset, action: str) -> frozenset[str]:
    """The outcomes that the action, or a step, fn or modifier it calls however indirectly, assigns.

    A call is followed wherever it is written, an expression's too; an assignment to a parameter that
    bears an outcome's name is the parameter's (the checker allows none, but it is not the outcome).
    """
    callable_decls: dict[str, n.Decl] = {**rules.modifiers, **rules.fns, **rules.steps, **rules.actions}
    found: set[str] = set()
    seen: set[str] = set()
    waiting = [action]
    while waiting:
        name = waiting.pop()
        decl = callable_decls.get(name)
        if name in seen or decl is None:
            continue
        seen.add(name)
        params = {param.name for param in decl.params}
        for node in descendants(decl):
            if isinstance(node, n.Assign) and node.target[0] in rules.outcomes and node.target[0] not in params:
                found.add(node.target[0])
            elif isinstance(node, n.Call) and node.func not in seen:
                waiting.append(node.func)
    return frozenset(found)
