"""The engine core: rules compiled to Python source, run by one of three engines.

`lower` turns each action of a checked ruleset into a control-flow graph of
blocks, `codegen` writes every block as a Python function, `engines` says how
chance is resolved and runs the blocks: one state at a time (sampled or
forced), or over a distribution of merged states (exact). `rt` holds what the
generated code calls.
"""
