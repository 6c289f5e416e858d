"""The engine core: a checked ruleset compiled to Python source and run by one of three engines.

`program` holds the tables the engine reads (parameters, rows, tables), whose
runtime values are `values` and whose final states are `state`. `codegen`
lowers each action to a graph of blocks and writes every block as a Python
function (`liveness` says what a state still holds, `analysis` which values
are chance, `builtins` implements the builtin functions), and `kept_code`
keeps what it wrote between runs; `engines` says how chance is resolved and
runs the blocks: one state at a time (sampled or forced), or over a
distribution of merged states (exact), with `dist`, and with `carry` for the
values a stretch of blocks leaves alone. `rt`
holds what the generated code calls, `resolve` runs an action from a start
state, `constraints` tests the rules' bounds, and `errors` are a run's own.
Nothing here knows the API or the tools built on it.
"""
