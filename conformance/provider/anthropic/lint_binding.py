"""``lint-config`` on ``thinking.block_binding``: what a failed prefix check does under a configuration,
and on a named model.

Under preserved thinking the service checks each thinking block sent back against what came before
it when it was produced (``system``, ``tools``, every earlier message). Where the check is enforced,
``prefix_mismatch_behavior: "error"`` answers a failed check with a 400 that names what changed;
``"drop_block"`` drops the block and every later thinking block and answers 200, so the request
succeeds and the task in flight goes on without its reasoning: the client's edit is hidden, not
fixed, and only ``input_transformations`` says so. What each model does when the check fails
(whether it runs the check, and what an unset field means) is the table of the research note on
preserved thinking (section 2.1), assembled from each model's migration guide and what's-new page
(https://platform.claude.com/docs/en/build-with-claude/preserved-thinking).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EDIT = "thinking.block_binding"
ERROR, DROP = "error", "drop_block"
BETA = "thinking-binding-controls-2026-08-01"
ENFORCED_FROM = "2026-08-31 00:00 UTC"  # accounts created from then on are enforced by default


@dataclass(frozen=True)
class ModelCheck:
    """What one model family does on a failed prefix check: whether it runs the check (``runs``:
    True, False or None when the documentation disagrees) and, in words, what the field unset,
    ``error`` and ``drop_block`` give."""

    family: str
    runs: bool | None
    unset: str
    error: str
    drop_block: str
    by_account: bool = False  # unset: a 400 only on accounts created from ENFORCED_FROM, else the block gets through


_REJECTS = "a 400 (\"The block is bound to a different conversation\") that names what changed"
_DROPS = ("200, the failing block and every later thinking block dropped, each listed as thinking_dropped "
          "(prefix_binding_mismatch) in input_transformations")
_NOT_RUN = ("a block whose prefix changed reaches the model, its reasoning about a history that is no longer there, "
            "and nothing reports it")
_ALWAYS = ModelCheck("Claude Fable 5.2 / Mythos 5.2", True, f"{_REJECTS}, on every account", _REJECTS, _DROPS)
_BY_ACCOUNT = (f"{_REJECTS} on accounts created on or after {ENFORCED_FROM}; on older accounts the check runs but "
               "is not enforced: the failing block reaches the model (listed as thinking_mismatch_allowed with "
               f"the {BETA} beta header, silently without it)")
_NEWER = ModelCheck("Claude Fable 5.1", True, _BY_ACCOUNT, _REJECTS, _DROPS, by_account=True)
_OLDER = ModelCheck("models before Claude Fable 5.1", False, _NOT_RUN, f"accepted, and {_NOT_RUN}",
                    f"nothing is dropped, and {_NOT_RUN}")
_MYTHOS_51 = ModelCheck(
    "Claude Mythos 5.1", None,
    "the documentation disagrees: its earlier pages say Mythos 5.1 records the signature but does not run the "
    f"check (the block reaches the model), the current ones that it answers {_REJECTS} on every account of the "
    "platforms they list", _REJECTS + " where it runs the check", _DROPS + " where it runs the check")
# Per family and version (major, minor): the models the research names. A version before 5.1 runs
# no check ("Claude Mythos 5.1 and models before Claude Fable 5.1 don't run the prefix check").
KNOWN: dict[tuple[str, int, int], ModelCheck] = {
    ("fable", 5, 2): _ALWAYS,
    ("mythos", 5, 2): _ALWAYS,
    ("fable", 5, 1): _NEWER,
    ("mythos", 5, 1): _MYTHOS_51,
    ("opus", 5, 5): ModelCheck("Claude Opus 5.5, enforced as Claude Fable 5.1", True, _BY_ACCOUNT, _REJECTS,
                               _DROPS, by_account=True),
    ("sonnet", 5, 5): ModelCheck("Claude Sonnet 5.5", True, _BY_ACCOUNT, _REJECTS, _DROPS, by_account=True),
    ("haiku", 5, 5): ModelCheck("Claude Haiku 5.5", True, _BY_ACCOUNT, _REJECTS, _DROPS, by_account=True),
}
# the minor version after a dash or a dot (gateway ids: ``anthropic/claude-sonnet-5.5``), one or two
# digits (an eight-digit date is no minor version)
NAME = re.compile(r"claude-(fable|mythos|opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?")
OLD_NAME = re.compile(r"claude-(?:instant-)?[1-3](?:\D|$)")  # claude-3-5-sonnet, claude-2.1, ...


def model_version(model: str) -> tuple[str, int, int] | None:
    """Returns the family and version (major, minor) of a named model (``claude-fable-5-1``, a dated
    or platform id such as ``anthropic.claude-opus-5-5-v1:0``; no minor version reads as 0), or None
    when the name does not spell them in that order (a Claude 1-3 name, or not a Claude model)."""
    match = NAME.search(model.lower())
    if match is None:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3) or 0)


def is_old_name(model: str) -> bool:
    """Returns whether the name is a Claude 1-3 model's (``claude-3-7-sonnet-20250219``, ``claude-2.1``)."""
    return model_version(model) is None and OLD_NAME.search(model.lower()) is not None


def model_check(model: str) -> ModelCheck | None:
    """Returns what the named model (``claude-fable-5-1``, a dated or platform id such as
    ``anthropic.claude-opus-5-5-v1:0``) does on a failed prefix check, or None for a model this table
    does not know (a newer version than it names, or not a Claude model)."""
    version = model_version(model)
    if version is None:
        return _OLDER if is_old_name(model) else None
    family, major, minor = version
    found = KNOWN.get((family, major, minor))
    if found is not None:
        return found
    return _OLDER if (major, minor) < (5, 1) else None


def behavior(config: Mapping[str, Any]) -> str | None:
    """Returns the configuration's ``thinking.block_binding.prefix_mismatch_behavior``, or None when unset."""
    thinking = config.get("thinking")
    bound = thinking.get("block_binding") if isinstance(thinking, Mapping) else None
    value = bound.get("prefix_mismatch_behavior") if isinstance(bound, Mapping) else None
    return str(value) if value is not None else None


def on_failed_check(model: str, setting: str | None) -> str:
    """Returns, in words, what ``model`` does when a thinking block sent back fails its prefix check
    under ``setting`` (``error``, ``drop_block`` or None: unset)."""
    check = model_check(model)
    if check is None:
        return (f"{model}: not a model the table this lint rests on names (preserved thinking, per model family), "
                "so what it does on a failed check cannot be said")
    said = {ERROR: check.error, DROP: check.drop_block}.get(setting or "", check.unset)
    runs = {True: "runs the prefix check", False: "does not run the prefix check",
            None: "may or may not run the prefix check"}[check.runs]
    shown = f"prefix_mismatch_behavior {setting}" if setting else "prefix_mismatch_behavior unset"
    return f"{model} ({check.family}) {runs}; with {shown}: {said}"


@dataclass(frozen=True)
class Advice:
    """The lint of one ``block_binding`` setting: whether it hides a client's edit (a failing finding),
    the situation in words, what to do, and the setting that replaces it."""

    reaches: bool
    situation: str
    avoid: str
    safer: dict[str, Any]


HIDES = ("a task in flight whose thinking is sent back after the client changed system, tools or an earlier message: "
         "the service drops that block and every later one and answers 200, so the edit is hidden, not fixed, and "
         "the task goes on without its reasoning (only input_transformations says so)")
FIX = ("set prefix_mismatch_behavior to error, so a failed check is a 400 naming what changed, and fix the edit: "
       "change settled history only at a task boundary, keeping no thinking after the change, or let the API clear "
       "or compact; if drop_block stays, judge each answer's input_transformations (conformance analyze or the "
       "guard: live-reasoning-lost)")


def advise(setting: str | None, model: str | None) -> Advice:
    """Returns the lint of ``setting`` (None: unset), on ``model`` when one is named."""
    check = model_check(model) if model else None
    keep = {"prefix_mismatch_behavior": setting} if setting else {}
    if check is not None and check.runs is False:
        return Advice(False, f"none: {model} does not run the prefix check, so this setting changes nothing; an edit "
                             "before a thinking block sent back goes unreported whatever it says",
                      "change settled history only at a task boundary, keeping no thinking after the change", keep)
    if setting == DROP:
        return Advice(True, HIDES, FIX, {"prefix_mismatch_behavior": ERROR})
    if setting == ERROR:
        return Advice(False, "none: an edit before a thinking block sent back is a 400 that names what changed, "
                             "never a silent loss", "nothing to change", keep)
    if check is not None and check.by_account:
        return Advice(False, f"depends on the account's creation date: unset, {model} answers an edit before a "
                             f"thinking block sent back with a 400 on accounts created on or after {ENFORCED_FROM}, "
                             "but on older accounts lets the block reach the model, its reasoning about a history "
                             "that is no longer there, reported only as thinking_mismatch_allowed with the "
                             f"{BETA} beta header (silently without it)",
                      f"on an account created before {ENFORCED_FROM}, set prefix_mismatch_behavior to error (with the "
                      f"{BETA} beta header), so a failed check is a 400 there too; on a later account nothing "
                      "changes", {"prefix_mismatch_behavior": ERROR})
    return Advice(False, "none from this setting: unset, the model's default applies (see the model's line)",
                  "nothing to change; to be sure of a 400 on every account, set prefix_mismatch_behavior to error",
                  keep)
