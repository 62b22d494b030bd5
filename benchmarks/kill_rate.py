"""Kill rate of the shipped scenarios and of fuzzing against the zoo of broken compactors.

A broken compactor (``tests/zoo/broken.py``) is killed only when the invariant that should catch
its defect (``CAUGHT_BY``) fails on it: on a shipped scenario, or on a generated history
(``run_fuzz`` with a fixed seed, counting only those invariants). Rates are given by defect class
(``DEFECT_CLASS``) and by compactor. The correct compactors of the zoo and the reference are fuzzed the same way: any
counterexample they get is listed with its shrunk size.

The fuzzer alone is measured a second way, as a user runs it: ``conformance fuzz --examples N
--seed S`` (the command's own options, built by ``conformance.fuzz.cli.fuzz_options``, no example
database), where a compactor is caught when the command would exit 1 (any MUST failure), over the
zoo and over the held-out set (``tests/zoo/held_out.py``: broken compactors reproducing failures
reported against real frameworks, written apart from the scenarios and the generator), by defect
class. Writes ``docs/fuzz.md``.

Run: ``python benchmarks/kill_rate.py`` (``--examples 1000 --seed 0``, ``--cli-examples 500
--cli-seed 1``; ``--no-write`` only prints; ``--cli-only`` prints the command's kill rates alone).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance import RunOptions, from_callable, load, run  # noqa: E402 - after the sys.path line above
from conformance.cli import build_parser  # noqa: E402 - after the sys.path line above
from conformance.fuzz import FuzzOptions, FuzzResult, run_fuzz  # noqa: E402 - after the sys.path line above
from conformance.fuzz.cli import fuzz_options  # noqa: E402 - after the sys.path line above
from conformance.engine.target import resolve  # noqa: E402 - after the sys.path line above
from tests.zoo import broken, correct, held_out  # noqa: E402 - after the sys.path line above

LEVELS = ("MUST", "SHOULD")
TIME_LIMIT = 0.2
DOC = ROOT / "docs" / "fuzz.md"


def shipped_kills(name: str) -> list[str]:
    """Returns the invariants the shipped scenarios catch ``name`` by (empty: it survives)."""
    scenarios = load([ROOT / "specs"]).scenarios
    if name == "hangs":
        scenarios = scenarios[:1]  # every call hangs: one scenario shows it
    report = run([from_callable(getattr(broken, name), name)], scenarios, options=RunOptions(time_limit=TIME_LIMIT))
    return sorted({r.invariant for r in report.results if r.level in LEVELS and r.outcome in ("fail", "error")})


def fuzzed(func: Callable[..., Any], name: str, examples: int, seed: int,
           invariants: tuple[str, ...] | None = None) -> FuzzResult:
    """Returns the fuzzing outcome of one compactor (no example database: a cold, fixed-seed run);
    with ``invariants``, only their failures count, so the search goes on past any other."""
    options = FuzzOptions(examples=examples, seed=seed, levels=LEVELS, time_limit=TIME_LIMIT, database=None,
                          invariants=invariants)
    return run_fuzz(from_callable(func, name), options)


def command_fuzzed(ref: str, examples: int, seed: int) -> FuzzResult:
    """Returns the outcome of ``conformance fuzz --target REF --examples N --seed S --no-cache`` on
    one compactor (``module:attr``): the command's own options and target resolution, without its
    printing and its counterexample file."""
    args = build_parser("fuzz").parse_args(["fuzz", "--target", ref, "--examples", str(examples),
                                            "--seed", str(seed), "--no-cache"])
    return run_fuzz(resolve(ref), fuzz_options(args))


SETS = (("zoo", "tests.zoo.broken", broken.CAUGHT_BY, broken.DEFECT_CLASS),
        ("held-out", "tests.zoo.held_out", held_out.CAUGHT_BY, held_out.DEFECT_CLASS))


def command_rates(examples: int, seed: int) -> list[str]:
    """Returns the Markdown rows of the command's kill rates by defect class, for the zoo and the
    held-out set, and a last row per set naming the compactors it missed."""
    rows: list[str] = []
    for label, module, caught_by, classes in SETS:
        missed: list[str] = []
        by_class: dict[str, list[bool]] = {}
        for name in sorted(caught_by):
            started = time.perf_counter()
            result = command_fuzzed(f"{module}:{name}", examples, seed)
            by_class.setdefault(classes[name], []).append(not result.passed)
            if result.passed:
                missed.append(name)
            print(f"{label:8} {name:34} caught={not result.passed!s:5} examples={result.examples:4} "
                  f"{time.perf_counter() - started:.1f}s", flush=True)
        for defect, kills in sorted(by_class.items()):
            rows.append(f"| {label} | {defect} | {sum(kills)}/{len(kills)} |")
        total = sum(len(k) for k in by_class.values())
        rows.append(f"| {label} | **all** ({', '.join(f'`{m}`' for m in missed) or 'none'} missed) | "
                    f"**{_rate(total - len(missed), total)}** |")
        print(f"{label}: caught {total - len(missed)} of {total}", flush=True)
    return rows


GRAMMAR = [
    "`conformance.fuzz.strategies.histories()` draws a `Scenario` from a grammar of tasks: an optional opening",
    "(a greeting, or a compaction turn and its answer), settled tasks, then one last task that is in flight",
    "or not. A task opens on an optional mid-conversation system message and one or more requests; each",
    "step is an assistant turn of client calls (one to three, after optional thinking, redacted thinking,",
    "a compaction block, text (2-24 KB of it beside reasoning), a server tool with its result, an unknown",
    "block; sometimes a progress note before it, or a turn paused on a server tool and continued) and a",
    "user turn of results in any order (string or list content, images, search results, `is_error`,",
    "`cache_control`, 2-40 KB outputs), with background-task notices (user text messages) now and then",
    "beside a settled task's request, and before, between or after the call and its results. Server",
    "tools are of the four built-in kinds (three in four), of",
    "kinds added later (tool search, bash and text-editor code execution) or of made-up kinds drawn from",
    "name parts, some with a use block type of their own. A settled task ends on an answer (text,",
    "citations, compaction blocks plain, encrypted, failed or with an id, large text beside reasoning,",
    "unknown fields, or the continuation of a paused turn, sometimes paused again on a second use, or a",
    "client prefill, which reads as an answer",
    "and so settles the history); a task in flight ends after its request or results, on calls awaiting",
    "results (sometimes the compaction tool `context_compact` itself), or on a paused turn. Parameters",
    "`keep_turns` and `budget_tokens` are drawn too (`keep_turns` sometimes puts the window's edge on a",
    "settled continuation of a paused turn); a notice between a call and its result allows a refusal.",
    "",
    "The builder records `truth.live_start` (where the last task opened) and `truth.unanswered` (the calls",
    "of a final call turn) as it places them. Interleaved tasks and stores that lost the order are drawn",
    "only with `undecidable=True` and always with `refusal_allowed`; so is a budget smaller than the task",
    "in flight. Every decision is a few bits of a drawn 32-byte word, so a 40 KB output costs one draw and",
    "Hypothesis shrinks a failing history task by task, step by step, down to the simplest blocks.",
    "",
]


def _named(found: list[str], own: tuple[str, ...]) -> str:
    """Returns whether one of the compactor's own invariants (``CAUGHT_BY``) caught it, then the
    others that failed too (at most two)."""
    mine = [i for i in own if i in found]
    others = [i for i in found if i not in own]
    head = ", ".join(f"**{i}**" for i in mine) if mine else "survives"
    tail = ", ".join(others[:2]) + (f" (+{len(others) - 2})" if len(others) > 2 else "")
    return head + (f"; also {tail}" if tail else "")


def _rate(killed: int, total: int) -> str:
    return f"{killed}/{total} ({100 * killed / total:.0f}%)"


def measure(examples: int, seed: int, cli_examples: int, cli_seed: int) -> str:
    """Returns the Markdown report of the kill rates, by defect class and by compactor, of the
    command's kill rates on the zoo and the held-out set, and of the correct compactors' runs."""
    names = sorted(broken.CAUGHT_BY)
    rows: list[str] = []
    killed_shipped: set[str] = set()
    killed_fuzz: set[str] = set()
    for name in names:
        started = time.perf_counter()
        own = broken.CAUGHT_BY[name]
        shipped = shipped_kills(name)
        result = fuzzed(getattr(broken, name), name, examples, seed, invariants=own)
        fuzz_kill = sorted({r.invariant for r in result.failures})
        size = f"{len(result.scenario.history)}" if result.scenario is not None else "-"
        if set(shipped) & set(own):
            killed_shipped.add(name)
        if fuzz_kill:
            killed_fuzz.add(name)
        rows.append(f"| `{name}` | {broken.DEFECT_CLASS[name]} | {_named(shipped, own)} | "
                    f"{_named(fuzz_kill, own)} | {result.examples if fuzz_kill else '-'} | {size} |")
        print(f"{name:28} shipped={name in killed_shipped!s:5} fuzz={bool(fuzz_kill)!s:5} "
              f"examples={result.examples:5} shrunk={size:>3} {time.perf_counter() - started:.1f}s", flush=True)
    classes: dict[str, list[str]] = {}
    for name in names:
        classes.setdefault(broken.DEFECT_CLASS[name], []).append(name)
    class_rows = []
    for defect, members in sorted(classes.items()):
        should = sorted({i for m in members for i in broken.CAUGHT_BY[m]})
        class_rows.append(f"| {defect} | {len(members)} | {', '.join(f'`{i}`' for i in should)} | "
                          f"{sum(m in killed_shipped for m in members)}/{len(members)} | "
                          f"{sum(m in killed_fuzz for m in members)}/{len(members)} |")

    def whole(killed: set[str]) -> int:  # classes each of whose compactors was killed
        return sum(all(m in killed for m in members) for members in classes.values())

    total = len(names)
    summary = [f"| shipped scenarios alone | {_rate(whole(killed_shipped), len(classes))} | "
               f"{_rate(len(killed_shipped), total)} |",
               f"| fuzzing alone ({examples} examples, seed {seed}) | {_rate(whole(killed_fuzz), len(classes))} | "
               f"{_rate(len(killed_fuzz), total)} |",
               f"| both | {_rate(whole(killed_shipped | killed_fuzz), len(classes))} | "
               f"{_rate(len(killed_shipped | killed_fuzz), total)} |"]
    print("\n".join(summary))
    correct_rows = []
    import conformance_reference as reference
    for name, func in [("conformance_reference:compact", reference.compact), *[(n, getattr(correct, n)) for n in
                                                                   ("noop", "deep_copy", "live_only", "summarizer")]]:
        result = fuzzed(func, name, examples, seed)
        if result.passed:
            verdict = f"passes {result.examples} examples"
        else:
            found = ", ".join(f"{r.invariant} ({r.level})" for r in result.failures)
            verdict = (f"counterexample after {result.examples} examples, shrunk to "
                       f"{len(result.scenario.history) if result.scenario else 0} messages: {found}")
        correct_rows.append(f"| `{name}` | {verdict} |")
        print(f"{name:28} {verdict}", flush=True)
    command_rows = command_rates(cli_examples, cli_seed)
    return page(examples, seed, summary, class_rows, rows, correct_rows, cli_examples, cli_seed, command_rows)


def page(examples: int, seed: int, summary: list[str], class_rows: list[str], rows: list[str],
         correct_rows: list[str], cli_examples: int = 500, cli_seed: int = 1,
         command_rows: list[str] | None = None) -> str:
    """Returns docs/fuzz.md around the measured rows; with no rows, the page's fixed frame (what
    ``tools/generated_docs.py --check`` compares the published page's shape with)."""
    return "\n".join([
        "# Fuzzing: generated histories against the zoo",
        "",
        *GRAMMAR,
        "## Kill rates",
        "",
        "Generated by `python benchmarks/kill_rate.py` (do not edit by hand). Each broken compactor of",
        "`tests/zoo/broken.py` has one defect class (`DEFECT_CLASS`) and the invariant that should catch",
        "it (`CAUGHT_BY`; where two are named, either counts). It is *killed* only when that invariant",
        "fails on it: a failure of another check does not count. Fuzzing uses",
        f"`conformance.fuzz.strategies.histories()` with seed {seed}, {examples} examples at most, no example",
        "database, and counts only the compactor's own invariants, so the search goes on past any other",
        "failure. A defect class is killed when each of its compactors is.",
        "",
        "| kill rate | defect classes killed | broken compactors killed |", "| --- | ---: | ---: |", *summary,
        "",
        "| defect class | compactors | invariant that should catch it | shipped scenarios | fuzzing |",
        "| --- | ---: | --- | ---: | ---: |", *class_rows,
        "",
        "In bold, the compactor's own invariant when it failed (else *survives*); after *also*, other checks",
        "that failed on the shipped scenarios. Fuzzing lists only the compactor's own invariants.",
        "",
        "| broken compactor | defect class | shipped scenarios catch it by | fuzzing catches it by "
        "| examples to find | shrunk to (messages) |",
        "| --- | --- | --- | --- | ---: | ---: |", *rows,
        "",
        "## The command alone, as a user runs it",
        "",
        f"`conformance fuzz --target MODULE:ATTR --examples {cli_examples} --seed {cli_seed} --no-cache` on each broken",
        "compactor of the zoo and of the held-out set (`tests/zoo/held_out.py`: broken compactors that",
        "reproduce failures reported against real frameworks, each naming the failure in `SOURCE`, written",
        "apart from the shipped scenarios and from the generator). A compactor is caught when the command",
        "would exit 1: a MUST failure of any invariant, as a user reads it. The options are the command's",
        "own (`conformance.fuzz.cli.fuzz_options`), so a default the command changes is measured here.",
        "",
        "| set | defect class | caught by the command |", "| --- | --- | ---: |", *(command_rows or []),
        "",
        "The correct compactors of the zoo and the reference, fuzzed the same way (every MUST and SHOULD):",
        "",
        "| compactor | outcome |", "| --- | --- |", *correct_rows,
        "",
        "A counterexample for a compactor meant to be correct is a finding: reproduce it with",
        "`conformance fuzz --target MODULE:ATTR --should --seed S --examples N`, which writes the shrunk",
        "scenario to `fuzz-failures/`, and decide whether the compactor or the scenario's truth is wrong.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli-examples", type=int, default=500)
    parser.add_argument("--cli-seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--cli-only", action="store_true", help="print the command's kill rates alone (writes nothing)")
    args = parser.parse_args()
    if args.cli_only:
        print("\n".join(command_rates(args.cli_examples, args.cli_seed)))
        return
    text = measure(args.examples, args.seed, args.cli_examples, args.cli_seed)
    if not args.no_write:
        DOC.write_text(text, encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
