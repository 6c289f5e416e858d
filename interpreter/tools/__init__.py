"""The tools built on fracas.interpreter.api: the CLI, reports, plots, sweeps, scenario
and state files, examples, the pytest plugin, the formatter and the language server.

They reach the engine only through api.py (tests/test_layering.py checks it).
"""
