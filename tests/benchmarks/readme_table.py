"""The README's table of benchmark figures, made from what `make bench` printed: never written by hand.

    python tests/benchmarks/readme_table.py LOG README

`make bench` keeps what it printed in tests/benchmarks/last-run.txt (LOG): a
first line naming the commit it measured, then pytest's output, where each
benchmark prints the figures it read and then its line
`BENCH name: ratio x (target <= y) MET|MISSED`. The table of those lines goes
between the README's two marker lines, in place of what was there. A test
(tests/test_readme.py) checks that the README holds the table the kept log
makes, so that the figures a reader sees are the ones last measured.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

START = "<!-- made by tests/benchmarks/readme_table.py from tests/benchmarks/last-run.txt: do not edit -->"
END = "<!-- end of the table made from the benchmarks -->"
RUN = "make bench of "  # how the log's first line begins (the Makefile writes it)

_VERDICT = re.compile(r"BENCH (?P<name>[^:]+): ratio (?P<ratio>.+?) \(target <= (?P<target>[^)]+)\) "
                      r"(?P<verdict>MET|MISSED.*)$")


@dataclass(frozen=True)
class Verdict:
    name: str
    ratio: str  # as printed: "1.57", "> 12", "n/a"
    target: str
    verdict: str  # MET, or MISSED and why
    figures: str  # what the benchmark printed before its verdict: the times it compared


@dataclass(frozen=True)
class Run:
    measured: str  # which commit, and when
    verdicts: list[Verdict]


def parse(log: str) -> Run:
    """The verdicts of a `make bench` log, each with the figures printed before it."""
    lines = log.splitlines()
    measured = lines[0][len(RUN):] if lines and lines[0].startswith(RUN) else "an unnamed commit"
    verdicts: list[Verdict] = []
    figures = ""
    for line in lines:
        found = _VERDICT.match(line)
        if found is not None:
            verdicts.append(Verdict(found["name"], found["ratio"], found["target"], found["verdict"], figures))
            figures = ""
        elif line.startswith("  ") and line.strip():  # a benchmark's figures (pytest's own lines start unindented)
            figures = line.strip()
    return Run(measured, verdicts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(run: Run) -> str:
    """The README's lines between the markers (the markers not included)."""
    met = sum(v.verdict == "MET" for v in run.verdicts)
    rows = [f"`make bench` of {run.measured}: {len(run.verdicts)} lines, {met} met, {len(run.verdicts) - met} "
            "missed. Each ratio is fracas's time over the yardstick's (what was measured says both).",
            "",
            "| benchmark | what was measured | ratio | target | |",
            "| --- | --- | --- | --- | --- |"]
    rows += [f"| {_cell(v.name)} | {_cell(v.figures)} | {_cell(v.ratio)} | <= {_cell(v.target)} | {_cell(v.verdict)} |"
             for v in run.verdicts]
    return "\n".join(rows)


def replaced(readme: str, made: str) -> str:
    """The README with `made` between its markers; ValueError if they are not there, once each, in order."""
    if readme.count(START) != 1 or readme.count(END) != 1 or readme.index(START) > readme.index(END):
        raise ValueError(f"the README needs the line {START!r} and, after it, the line {END!r}, once each")
    before, rest = readme.split(START)
    _, after = rest.split(END)
    return f"{before}{START}\n{made}\n{END}{after}"


def between_markers(readme: str) -> str:
    """What the README holds between its markers now."""
    return readme.split(START, 1)[1].split(END, 1)[0].strip("\n")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    log, readme = Path(argv[0]), Path(argv[1])
    run = parse(log.read_text())
    if not run.verdicts:
        print(f"{log}: no BENCH lines: is it what `make bench` printed?", file=sys.stderr)
        return 1
    try:
        text = replaced(readme.read_text(), table(run))
    except ValueError as error:
        print(f"{readme}: {error}", file=sys.stderr)
        return 1
    readme.write_text(text)
    print(f"{readme}: the table of {len(run.verdicts)} benchmark lines from {log} ({run.measured})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
