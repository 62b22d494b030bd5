"""``conformance matrix``: run a suite's libraries and show its matrix; write it only where asked.

One command for every suite (``--suite``: the peers over the scenarios, by default, or the egress
components over the egress conversations; ``conformance egress-matrix`` is ``matrix --suite egress``).
By default the summary table goes to the terminal and no file is touched. ``--out DIR`` writes the
suite's files (``<stem>.json`` and the pages rendered from it) to DIR; ``--publish`` writes them, and
the README's block of a suite that has one, into the checkout this package runs from (refused when
it does not run from a checkout). A run that cannot check a row (its library is not installed, or a
server it needs cannot start) writes nothing and exits 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from .._text import plural
from ..outputs import MARKDOWN_SUFFIXES, Output, check_outputs
from .._paths import checkout
from .suite import Suite, suite as find_suite

def _missing(suite: Suite, runners: list[Any]) -> str:
    """Returns the error that counts and names the libraries not installed (several rows may share
    one), the rows they leave unrun, and how to install them."""
    libraries = sorted({r.library for r in runners})
    return (f"conformance: error: {plural(len(libraries), 'library', 'libraries')} not installed "
            f"({', '.join(libraries)}), so {plural(len(runners), suite.noun)} cannot run and no file was written; "
            f"install them with {suite.install}")


def _destination(args: argparse.Namespace, suite: Suite) -> tuple[Path | None, Path | None] | str:
    """Returns (folder for the matrix files, README to update), (None, None) for the terminal
    only, or the error that refuses the request."""
    readme = getattr(args, "readme", "")
    if readme and suite.update_readme is None:
        return f"--readme: the {suite.name} matrix has no README block"
    if args.publish and args.out:
        return "--publish writes into the checkout's docs/; --out DIR writes elsewhere: give one"
    if args.publish:
        root = checkout()
        if root is None:
            return (f"--publish writes the project's own docs/ and README.md, but this package "
                    f"({Path(__file__).resolve().parents[1]}) is not in a checkout of context-conformance; "
                    "use --out DIR")
        if suite.update_readme is None:
            return root / "docs", None
        return root / "docs", (root / readme if readme else root / "README.md")
    if args.out:
        return Path(args.out), (Path(readme) if readme else None)
    if readme:
        return "--readme needs --out DIR or --publish"
    return None, None


def _published(args: argparse.Namespace, suite: Suite) -> Path | str:
    """Returns the record that ``--check`` compares with, or the error that refuses it."""
    if args.out:
        return Path(args.out) / f"{suite.stem}.json"
    root = checkout()
    if root is None:
        return f"--check compares with the checkout's docs/{suite.stem}.json, but this package is not in a " \
               "checkout; use --out DIR"
    return root / "docs" / f"{suite.stem}.json"


def _write(suite: Suite, out: Path, readme: Path | None, matrix: dict[str, Any], named: bool,
           cases: Sequence[Any]) -> None:
    """Writes the suite's files to ``out`` (and the block of ``readme``); with ``named`` rows, the
    other rows are kept from the record already there."""
    out.mkdir(parents=True, exist_ok=True)
    record = out / f"{suite.stem}.json"
    if named and record.is_file():  # named rows: the others stay as they were
        fresh = {row[suite.key]: row for row in matrix["rows"]}
        earlier = json.loads(record.read_text(encoding="utf-8"))
        matrix["rows"] = [fresh.pop(row[suite.key], row) for row in earlier["rows"]] + list(fresh.values())
    record.write_text(json.dumps(matrix, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / f"{suite.stem}.md").write_text(suite.markdown(matrix) + "\n", encoding="utf-8")
    suite.pages(out, matrix, cases)
    if readme is not None and suite.update_readme is not None and readme.is_file() \
            and not suite.update_readme(readme, matrix):
        print(f"note: {readme} has no matrix block; not updated", file=sys.stderr)
    others = [f".{name.rsplit('.', 1)[1]}" for name in suite.files[1:]]
    listed = " and ".join([", ".join(others[:-1]), others[-1]] if len(others) > 1 else others)
    print(f"{suite.stem}: wrote {record}, {listed}" + (f" and {readme}" if readme else ""), file=sys.stderr)


def cmd_matrix(args: argparse.Namespace) -> int:
    """Runs a suite's rows; prints the table, writes the files asked for, or checks the published ones.

    Returns 0, 1 for ``--check`` with a changed row, or 2 for a usage error, an unknown suite or
    row, spec errors, a library not installed or a server that cannot start (then nothing is written).
    """
    suite = find_suite(getattr(args, "suite", "peers") or "peers")  # (RegistryError: a usage error, exit 2)
    names = list(args.names or [])
    try:
        runners = suite.select(names)
    except KeyError as exc:
        print(f"conformance: error: {exc.args[0]}", file=sys.stderr)
        return 2
    where = _published(args, suite) if args.check else _destination(args, suite)
    if isinstance(where, str):
        print(f"conformance: error: {where}", file=sys.stderr)
        return 2
    specs = args.specs or [suite.specs()]
    if isinstance(where, tuple):  # (--check reads --out, writes nothing)
        out, readme = where
        check_outputs([Output("--out", str(out) if out is not None else None, folder=True, names=suite.files),
                       Output("--readme", str(readme) if readme is not None else None, suffixes=MARKDOWN_SUFFIXES)],
                      specs)
    missing = [r for r in runners if not r.installed]
    if missing and not args.check:  # --check says the same after comparing the rows it could run
        print(_missing(suite, missing), file=sys.stderr)
        return 2
    loaded = suite.load(specs)
    if loaded.errors:
        for error in loaded.errors:
            print(f"conformance: spec error: {error}", file=sys.stderr)
        return 2
    cases = suite.cases(loaded)
    logging.disable(logging.WARNING)  # the libraries' own warnings (a window it cannot trim) are not results
    try:
        matrix = suite.build(runners, cases)
    except suite.unavailable as exc:
        print(f"conformance: error: a server a row needs cannot start: {exc}", file=sys.stderr)
        return 2
    finally:
        logging.disable(logging.NOTSET)
    if isinstance(where, Path):
        return suite.check_against(matrix, where, bool(names))
    out, readme = where
    if out is not None:
        _write(suite, out, readme, matrix, bool(names), cases)
    print("\n".join(suite.summary_table(matrix)))
    return 0


def _arguments(parser: argparse.ArgumentParser, row: str, cases: str, files: str) -> None:
    parser.add_argument("names", nargs="*", metavar=row, help=f"{row.lower()} names or libraries (default: all)")
    parser.add_argument("--specs", nargs="+", metavar="PATH", help=f"{cases} files or folders (default: the shipped ones)")
    parser.add_argument("--out", metavar="DIR", help=f"write {files} to DIR (default: none written, the table printed)")
    parser.add_argument("--publish", action="store_true",
                        help="write the suite's files into the docs/ of the checkout this package runs from "
                             "(and the README's block of the peers' matrix)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a row differs from the published record (the "
                        "checkout's docs/, or --out DIR; dates aside), 2 when a library is not installed")
    parser.set_defaults(func=cmd_matrix)


def register(subparsers: Any) -> None:
    """Adds the ``matrix`` subcommand, and ``egress-matrix`` (``matrix --suite egress``), to the
    ``conformance`` parser."""
    m = subparsers.add_parser("matrix", help="run a suite's libraries (default: the peers over the scenarios) "
                              "and print the matrix (--publish writes the project's docs/ and README block)")
    m.add_argument("--suite", default="peers", metavar="NAME",
                   help="the suite: peers (the default: trimmers over the scenarios) or egress (serializers "
                   "and stores over the egress conversations), or one a package registers")
    _arguments(m, "NAME", "spec", "the suite's record and pages (matrix.json, .md and .html for the peers)")
    m.add_argument("--readme", default="", metavar="PATH",
                   help="README whose matrix block is replaced (with --out; --publish uses the checkout's)")
    e = subparsers.add_parser("egress-matrix", help="conformance matrix --suite egress: real libraries' "
                              "serializers and stores over the egress conversations")
    _arguments(e, "COMPONENT", "egress conversation", "egress-matrix.json and .md")
    e.set_defaults(suite="egress")
