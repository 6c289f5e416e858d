"""Exact calculations written by hand in plain Python: the yardsticks of the benchmarks.

Each module computes the distribution of a shipped rules file's outcomes for
one kind of scenario, the way a careful hand-written calculator would (whole
numbers over a common denominator, dynamic programming, convolution), and
returns it as {tuple of outcome values: Fraction}. tests/test_baselines.py
checks each against fracas's exact odds at small sizes; the benchmarks time
fracas against them at large ones.
"""
