"""The part of the anthropic and openai SDKs the suite relies on, listed one fact a line, and compared
with the list stored beside this script (``sdk-surface.txt``).

The facts: each client, exception and method the suite calls exists and takes the parameters it
passes (every parameter of the signature is listed); each response type the judges, the analyzer
and the replay read keeps its fields (``field NAME``), and each union of block types its members.
A fact of the stored list the installed SDKs no longer have is a change of surface the suite must
follow (exit 1); a fact the installed SDKs add is reported and passes (exit 0). The scheduled
drift job runs this after installing the newest SDK releases (``.github/workflows/drift.yml``).

    python tools/sdk_surface.py                 # print the installed SDKs' surface
    python tools/sdk_surface.py --check         # compare it with tools/sdk-surface.txt (exit 0/1)
    python tools/sdk_surface.py --write FILE    # write the list (the stored one: tools/sdk-surface.txt)

Exit codes: 0 nothing the suite relies on changed, 1 a fact of the stored list is gone, 2 usage or
an unreadable stored list.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import types
import typing
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

STORED = Path(__file__).resolve().with_name("sdk-surface.txt")
HEADER = "#"  # lines of the stored list that name versions: not compared

# Dotted names (module:attribute path) of what the suite calls or reads.
SURFACE = (
    "anthropic:Anthropic", "anthropic:AsyncAnthropic", "anthropic:APIStatusError", "anthropic:BadRequestError",
    "anthropic:APIConnectionError", "anthropic:APIResponseValidationError",
    "anthropic.resources.beta.messages.messages:Messages.create",
    "anthropic.resources.beta.messages.messages:Messages.count_tokens",
    "anthropic.resources.beta.messages.messages:Messages.stream",
    "anthropic.resources.messages.messages:Messages.create",
    "anthropic.resources.messages.messages:Messages.stream",
    "anthropic.types.beta:BetaMessage", "anthropic.types.beta:BetaUsage", "anthropic.types.beta:BetaContentBlock",
    "anthropic.types.beta:BetaMessageTokensCount", "anthropic.types.beta:BetaContextManagementResponse",
    "anthropic.types.beta:BetaCountTokensContextManagementResponse",
    "anthropic.types.beta:BetaClearToolUses20250919EditResponse",
    "anthropic.types.beta:BetaClearThinking20251015EditResponse",
    "anthropic.types.beta:BetaCompactionBlock", "anthropic.types.beta:BetaCompactionIterationUsage",
    "anthropic.types.beta:BetaMessageIterationUsage",
    "anthropic.types.beta:BetaThinkingDroppedInputTransformation",
    "anthropic.types.beta:BetaThinkingMismatchAllowedInputTransformation",
    "openai:OpenAI", "openai:AsyncOpenAI", "openai:APIStatusError", "openai:BadRequestError",
    "openai:APIConnectionError", "openai:DefaultHttpxClient",
    "openai.resources.responses.responses:Responses.create", "openai.resources.responses.responses:Responses.compact",
    "openai.resources.responses.responses:Responses.retrieve",
    "openai.resources.responses.input_tokens:InputTokens.count",
    "openai.types.responses:Response", "openai.types.responses:ResponseUsage",
    "openai.types.responses:ResponseCompactionItem", "openai.types.responses:CompactedResponse",
    "openai.types.responses:InputTokenCountResponse",
)


def _resolve(name: str) -> Any:
    """Returns the object a ``module:attribute.path`` names; raises ``ImportError`` or ``AttributeError``."""
    module, _, path = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in path.split("."):
        found = getattr(found, part)
    return found


def _members(union: Any) -> list[Any] | None:
    """Returns the members of a (possibly ``Annotated``) union of types, or None for anything else."""
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    if typing.get_origin(union) in (typing.Union, types.UnionType):
        return list(typing.get_args(union))
    return None


def facts(name: str) -> Iterator[str]:
    """Yields the facts of one named object: ``NAME missing`` when it cannot be found, else
    ``NAME member X`` (a union), ``NAME field X`` (a pydantic model) or ``NAME param X`` (a callable,
    a class by its constructor)."""
    try:
        found = _resolve(name)
    except (ImportError, AttributeError):
        yield f"{name} missing"
        return
    members = _members(found)
    if members is not None:
        for member in members:
            yield f"{name} member {getattr(member, '__name__', repr(member))}"
        return
    fields = getattr(found, "model_fields", None)
    if isinstance(found, type) and isinstance(fields, dict):
        for field in fields:
            yield f"{name} field {field}"
        return
    try:
        signature = inspect.signature(found)
    except (TypeError, ValueError):
        yield f"{name} exists"
        return
    for param in signature.parameters:
        if param != "self":
            yield f"{name} param {param}"


def surface(names: Sequence[str] = SURFACE) -> list[str]:
    """Returns the sorted facts of ``names`` in the installed SDKs."""
    return sorted({line for name in names for line in facts(name)})


def versions() -> str:
    """Returns the header line naming the installed SDK versions."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for sdk in ("anthropic", "openai"):
        try:
            found.append(f"{sdk} {version(sdk)}")
        except PackageNotFoundError:
            found.append(f"{sdk} not installed")
    return f"{HEADER} listed on {', '.join(found)}"


def read(path: Path) -> list[str]:
    """Returns the facts of a stored list (its header lines and blank lines left out); raises
    ``OSError`` or ``UnicodeDecodeError`` when it cannot be read."""
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith(HEADER)]


def compare(stored: Sequence[str], now: Sequence[str]) -> tuple[list[str], list[str]]:
    """Returns ``(gone, added)``: the stored facts the installed SDKs lack, and their new ones."""
    before, after = set(stored), set(now)
    return sorted(before - after), sorted(after - before)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command; returns its exit code (0, 1, 2: see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", nargs="?", const="", metavar="FILE",
                       help="compare with a stored list (default: tools/sdk-surface.txt)")
    group.add_argument("--write", metavar="FILE", help="write the list of the installed SDKs to FILE")
    args = parser.parse_args(argv)
    now = surface()
    if args.write:
        Path(args.write).write_text("\n".join([versions(), *now]) + "\n", encoding="utf-8")
        print(f"wrote {len(now)} facts to {args.write}")
        return 0
    if args.check is None:
        print("\n".join([versions(), *now]))
        return 0
    path, label = (Path(args.check), args.check) if args.check else (STORED, "tools/sdk-surface.txt")
    try:
        stored = read(path)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"sdk_surface: cannot read the stored list {label}: {exc}", file=sys.stderr)
        return 2
    gone, added = compare(stored, now)
    print(f"SDK surface: {versions()[len(HEADER) + 1:]}; compared with {label} ({len(stored)} facts)")
    for line in gone:
        print(f"  gone: {line}")
    for line in added:
        print(f"  new:  {line}")
    if gone:
        print(f"{len(gone)} fact(s) the suite relies on changed: follow the SDK, then write the list again")
        return 1
    print("nothing the suite relies on changed" + (f"; {len(added)} new fact(s)" if added else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
