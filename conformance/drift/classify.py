"""Diff two normalised recordings with deepdiff and sort every change: breaking, additive or noise.

Breaking: a type changed, a key disappeared, a block or edit type disappeared, the order of block
or edit types changed (thinking no longer first, say), an enum value (``type``, ``stop_reason``,
``role``, ``object``, ``reason``, ``truncation``, ...) or a true/false flag flipped (outside a tool
call's ``input``, which the model writes), the status changed or an error appeared.
Additive: a new key, a new block or edit type, a new interaction. Noise: everything else (free
text, counts, more or fewer blocks of types already present).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from deepdiff import DeepDiff, extract
from deepdiff.helper import CannotCompare

ENUM_KEYS = frozenset({"type", "stop_reason", "role", "stop_sequence_type", "status", "error_code", "code", "object",
                       "reason", "truncation"})
# Keys under which the model writes its own values (a tool call's arguments): those vary from one
# answer to the next, so neither an enum key nor a flag there is the provider's.
MODEL_WRITTEN_KEYS = frozenset({"input"})
# The request is the probe's own: compared by digest elsewhere, never diffed as provider drift.
EXCLUDE_REGEX_PATHS = (r"^root\[\d+\]\['request'\]",)
MAX_VALUE = 160


def _value(value: Any) -> Any:
    """Returns ``value`` small enough for a report: long text and large structures are cut."""
    if type(value).__name__ == "NotPresent":
        return None
    if isinstance(value, str):
        return value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _types(items: Any) -> set[str]:
    if not isinstance(items, list):
        return set()
    return {str(i.get("type")) for i in items if isinstance(i, dict) and "type" in i}


def _type_order(items: Any) -> list[str]:
    """Returns the ``type`` of each typed item of a list, in order (empty for anything else)."""
    if not isinstance(items, list):
        return []
    return [str(i["type"]) for i in items if isinstance(i, dict) and "type" in i]


def _first_seen(order: Sequence[str], among: set[str]) -> list[str]:
    """Returns the types of ``among`` in the order they first appear in ``order``."""
    seen: list[str] = []
    for kind in order:
        if kind in among and kind not in seen:
            seen.append(kind)
    return seen


def _typed(value: Any) -> bool:
    return isinstance(value, dict) and "type" in value


def _parent(root: Any, path: Sequence[Any]) -> Any:
    node = root
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def change(probe: str, category: str, kind: str, path: str, rule: str, before: Any = None,
           after: Any = None) -> dict[str, Any]:
    """Returns one classified change as plain data, its values cut to report size."""
    return {"probe": probe, "category": category, "change": kind, "path": path, "rule": rule,
            "before": _value(before), "after": _value(after)}


def _key(path: Sequence[Any]) -> str:
    return next((str(p) for p in reversed(path) if isinstance(p, str)), "")


def _model_written(path: Sequence[Any]) -> bool:
    """Returns whether ``path`` runs inside a value the model wrote (a tool call's ``input``)."""
    return any(isinstance(part, str) and part in MODEL_WRITTEN_KEYS for part in path[2:])


def classify_level(probe: str, kind: str, level: Any, before: Any, after: Any) -> dict[str, Any]:
    """Returns the classified change for one deepdiff tree level of report type ``kind``."""
    path = level.path(output_format="list")
    where = level.path()
    key = _key(path)
    if kind == "type_changes":
        return change(probe, "breaking", kind, where, f"type changed: {type(level.t1).__name__} → "
                       f"{type(level.t2).__name__}", level.t1, level.t2)
    if kind == "dictionary_item_removed":
        return change(probe, "breaking", kind, where, f"key {key!r} disappeared", level.t1)
    if kind == "dictionary_item_added":
        if key == "error":
            return change(probe, "breaking", kind, where, "an error appeared", after=level.t2)
        return change(probe, "additive", kind, where, f"new key {key!r}", after=level.t2)
    if kind == "values_changed":
        if len(path) == 2 and key == "status":
            return change(probe, "breaking", kind, where, _status_rule(level.t1, level.t2), level.t1, level.t2)
        if _typed(level.t1) and _typed(level.t2) and level.t1["type"] != level.t2["type"]:
            return change(probe, "breaking", kind, where + "['type']", "enum value 'type' changed",
                           level.t1["type"], level.t2["type"])
        if isinstance(level.t1, bool) and isinstance(level.t2, bool) and not _model_written(path):
            return change(probe, "breaking", kind, where, f"flag {key or 'item'!r} flipped", level.t1, level.t2)
        if key in ENUM_KEYS and not _model_written(path):
            return change(probe, "breaking", kind, where, f"enum value {key!r} changed", level.t1, level.t2)
        return change(probe, "noise", kind, where, f"value of {key or 'item'!r} changed", level.t1, level.t2)
    if kind in ("iterable_item_removed", "iterable_item_added"):
        removed = kind == "iterable_item_removed"
        item = level.t1 if removed else level.t2
        if len(path) == 1:
            return change(probe, "breaking" if removed else "additive", kind, where,
                           "an interaction disappeared" if removed else "a new interaction", item if not removed else None)
        kind_of = item.get("type") if isinstance(item, dict) else None
        if kind_of is None:
            return change(probe, "noise", kind, where, "an untyped list item " + ("went" if removed else "came"),
                           item if removed else None, None if removed else item)
        other_side = _types(_parent(after if removed else before, path))
        if removed and kind_of not in other_side:
            return change(probe, "breaking", kind, where, f"block or edit type {kind_of!r} disappeared", kind_of)
        if not removed and kind_of not in other_side:
            return change(probe, "additive", kind, where, f"new block or edit type {kind_of!r}", after=kind_of)
        return change(probe, "noise", kind, where, f"{'one fewer' if removed else 'one more'} {kind_of!r} item",
                       kind_of if removed else None, None if removed else kind_of)
    if kind == "iterable_item_moved":
        order_before = _type_order(_parent(before, path))
        order_after = _type_order(_parent(after, path))
        if order_before != order_after and set(order_before) == set(order_after):
            return change(probe, "breaking", kind, where, "the order of block or edit types changed",
                           order_before, order_after)
        return change(probe, "noise", kind, where, "items changed order", None, None)
    return change(probe, "noise", kind, where, kind.replace("_", " "), level.t1, level.t2)


def _status_rule(before: Any, after: Any) -> str:
    """Returns why an HTTP status change is breaking, in words."""
    was, now = (before or 0) >= 400, (after or 0) >= 400
    if now:
        return "an error code changed" if was else "an error code appeared"
    return "an error went away: the request is now accepted" if was else "the status changed"


def same_item(x: Any, y: Any, level: Any = None) -> bool:
    """Returns whether two list items are the same typed block or edit; raises ``CannotCompare`` otherwise."""
    if isinstance(x, dict) and isinstance(y, dict) and "type" in x and "type" in y:
        return bool(x["type"] == y["type"])
    raise CannotCompare() from None


def _list_of(path: str) -> str:
    return path.rsplit("[", 1)[0]


def _resized_order(probe: str, where: str, before: Any, after: Any) -> dict[str, Any] | None:
    """Returns a breaking change when the types both sides of a resized list share first appear in
    another order (thinking no longer first, say), else None: there, moves are mostly index shifts."""
    old, new = (_type_order(extract(side, where)) for side in (before, after))
    common = set(old) & set(new)
    if _first_seen(old, common) == _first_seen(new, common):
        return None
    return change(probe, "breaking", "iterable_item_moved", where, "the order of block or edit types changed", old, new)


def _drop_shifts(probe: str, changes: list[dict[str, Any]], before: Any, after: Any) -> list[dict[str, Any]]:
    """Returns ``changes`` with one move change per reordered list; in a list that also gained or lost
    items, moves count only when the order in which its types first appear changed."""
    resized = {_list_of(c["path"]) for c in changes if c["change"] in ("iterable_item_added", "iterable_item_removed")}
    kept, moved = [], set()
    for c in changes:
        if c["change"] == "iterable_item_moved":
            where = _list_of(c["path"])
            if where in moved:
                continue
            moved.add(where)
            found = _resized_order(probe, where, before, after) if where in resized else {**c, "path": where}
            if found is None:
                continue
            c = found
        kept.append(c)
    return kept


def _merge_replaced(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns ``changes`` where a type that vanished and one that appeared in the same list read as one
    breaking change of the ``type`` value."""
    gone = [c for c in changes if c["change"] == "iterable_item_removed" and c["category"] == "breaking"]
    came = [c for c in changes if c["change"] == "iterable_item_added" and c["category"] == "additive"]
    for old in gone:
        twin = next((new for new in came if _list_of(new["path"]) == _list_of(old["path"])), None)
        if twin is None:
            continue
        came.remove(twin)
        changes.remove(twin)
        old.update(change="values_changed", path=old["path"] + "['type']", rule="enum value 'type' changed",
                   after=twin["after"])
    return changes


def _same(before: Any, after: Any) -> bool:
    """Returns True when ``before`` and ``after`` are the same plain data, types included (``1``,
    ``1.0`` and ``True`` differ, as they do to DeepDiff); False when unsure (a NaN may be there)."""
    text = repr(before)
    return text == repr(after) and "nan" not in text


def classify(probe: str, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the classified changes from ``before`` to ``after`` (normalised interaction lists)."""
    if _same(before, after):
        return []  # most probes of a drift run are unchanged: no diff to walk
    diff = DeepDiff(before, after, view="tree", exclude_regex_paths=list(EXCLUDE_REGEX_PATHS),
                    iterable_compare_func=same_item, threshold_to_diff_deeper=0)
    changes = []
    for kind in sorted(diff):
        for level in diff[kind]:
            changes.append(classify_level(probe, kind, level, before, after))
    changes = _merge_replaced(_drop_shifts(probe, changes, before, after))
    for index, (b, a) in enumerate(zip(before, after)):
        if b["request"] != a["request"]:
            changes.append(change(probe, "noise", "request_changed", f"root[{index}]['request']",
                                   "the probe's own request changed: response changes may come from the spec",
                                   b["request"]["digest"], a["request"]["digest"]))
    return changes
