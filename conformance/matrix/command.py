"""``conformance matrix``: run the peers and show the matrix; write it only where asked.

By default the summary table goes to the terminal and no file is touched. ``--out DIR`` writes
matrix.json, .md and .html to DIR; ``--publish`` writes them, and the README's matrix block, into
the checkout this package runs from (refused when it does not run from a checkout). A run that
cannot check a peer (its library is not installed) writes nothing and exits 2.
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
from .._paths import shipped
from ..outputs import MARKDOWN_SUFFIXES, Output, check_outputs
from ..peers import Peer, select
from ..spec import Scenario, load
from .._paths import checkout
from .build import START, build, check_against, markdown, summary_table, update_readme

INSTALL_PEERS = 'pip install -e ".[peers]" in a checkout, or pip install "context-conformance[peers]"'


def _missing(peers: list[Peer]) -> str:
    """Returns the error that counts and names the libraries not installed (several peers may share
    one), the peers they leave unrun, and how to install them."""
    libraries = sorted({p.library for p in peers})
    return (f"conformance: error: {plural(len(libraries), 'library', 'libraries')} not installed "
            f"({', '.join(libraries)}), so {plural(len(peers), 'peer')} cannot run and no file was written; "
            f"install them with {INSTALL_PEERS}")


def _destination(args: argparse.Namespace) -> tuple[Path | None, Path | None] | str:
    """Returns (folder for the matrix files, README to update), (None, None) for the terminal
    only, or the error that refuses the request."""
    if args.publish and args.out:
        return "--publish writes into the checkout's docs/; --out DIR writes elsewhere: give one"
    if args.publish:
        root = checkout()
        if root is None:
            return (f"--publish writes the project's own docs/ and README.md, but this package "
                    f"({Path(__file__).resolve().parents[1]}) is not in a checkout of context-conformance; "
                    "use --out DIR")
        return root / "docs", (root / args.readme if args.readme else root / "README.md")
    if args.out:
        return Path(args.out), (Path(args.readme) if args.readme else None)
    if args.readme:
        return "--readme needs --out DIR or --publish"
    return None, None


def _published(args: argparse.Namespace) -> Path | str:
    """Returns the matrix.json that ``--check`` compares with, or the error that refuses it."""
    if args.out:
        return Path(args.out) / "matrix.json"
    root = checkout()
    if root is None:
        return "--check compares with the checkout's docs/matrix.json, but this package is not in a checkout; " \
               "use --out DIR"
    return root / "docs" / "matrix.json"


def _write(out: Path, readme: Path | None, matrix: dict[str, Any], named: bool,
           scenarios: Sequence[Scenario]) -> None:
    """Writes matrix.json, .md and .html to ``out`` (and the block of ``readme``); with ``named``
    peers, the rows of the others are kept from the matrix.json already there."""
    out.mkdir(parents=True, exist_ok=True)
    if named and (out / "matrix.json").is_file():  # named peers: the other rows stay as they were
        fresh = {row["peer"]: row for row in matrix["rows"]}
        earlier = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
        matrix["rows"] = [fresh.pop(row["peer"], row) for row in earlier["rows"]] + list(fresh.values())
    (out / "matrix.json").write_text(json.dumps(matrix, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "matrix.md").write_text(markdown(matrix) + "\n", encoding="utf-8")
    from .html import page
    (out / "matrix.html").write_text(page(matrix, scenarios), encoding="utf-8")
    if readme is not None and readme.is_file() and not update_readme(readme, matrix):
        print(f"note: {readme} has no {START} block; not updated", file=sys.stderr)
    print(f"matrix: wrote {out / 'matrix.json'}, .md and .html" + (f" and {readme}" if readme else ""),
          file=sys.stderr)


def cmd_matrix(args: argparse.Namespace) -> int:
    """Runs the peers; prints the table, writes the files asked for, or checks the published ones.

    Returns 0, 1 for ``--check`` with a changed row, or 2 for a usage error, an unknown peer, spec
    errors or a peer not installed (then nothing is written).
    """
    try:
        peers = select(args.peers)
    except KeyError as exc:
        print(f"conformance: error: {exc.args[0]}", file=sys.stderr)
        return 2
    where = _published(args) if args.check else _destination(args)
    if isinstance(where, str):
        print(f"conformance: error: {where}", file=sys.stderr)
        return 2
    if isinstance(where, tuple):  # (--check reads --out, writes nothing)
        out, readme = where
        check_outputs([Output("--out", str(out) if out is not None else None, folder=True,
                              names=("matrix.json", "matrix.md", "matrix.html")),
                       Output("--readme", str(readme) if readme is not None else None, suffixes=MARKDOWN_SUFFIXES)],
                      args.specs or [shipped("specs")])
    missing = [p for p in peers if not p.installed]
    if missing and not args.check:  # --check says the same after comparing the rows it could run
        print(_missing(missing), file=sys.stderr)
        return 2
    loaded = load(args.specs or [shipped("specs")])
    if loaded.errors:
        for error in loaded.errors:
            print(f"conformance: spec error: {error}", file=sys.stderr)
        return 2
    logging.disable(logging.WARNING)  # the libraries' own warnings (a window it cannot trim) are not results
    try:
        matrix = build(peers, loaded.scenarios)
    finally:
        logging.disable(logging.NOTSET)
    if isinstance(where, Path):
        return check_against(matrix, where, bool(args.peers))
    out, readme = where
    if out is not None:
        _write(out, readme, matrix, bool(args.peers), loaded.scenarios)
    print("\n".join(summary_table(matrix)))
    return 0


def register(subparsers: Any) -> None:
    """Adds the ``matrix`` subcommand to the ``conformance`` parser."""
    m = subparsers.add_parser("matrix", help="run the peers over the scenarios and print the matrix "
                              "(--publish writes the project's docs/matrix.* and README block)")
    m.add_argument("peers", nargs="*", metavar="PEER", help="peer names or libraries (default: all)")
    m.add_argument("--specs", nargs="+", metavar="PATH", help="spec files or folders (default: the shipped specs)")
    m.add_argument("--out", metavar="DIR", help="write matrix.json, .md and .html to DIR (default: none written)")
    m.add_argument("--publish", action="store_true",
                   help="write docs/matrix.* and the README block of the checkout this package runs from")
    m.add_argument("--readme", default="", metavar="PATH",
                   help="README whose matrix block is replaced (with --out; --publish uses the checkout's)")
    m.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when a row differs from the published matrix.json (the "
                   "checkout's docs/, or --out DIR), 2 when a peer is not installed")
    m.set_defaults(func=cmd_matrix)
