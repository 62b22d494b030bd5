"""The emulator's own prefix check of the thinking a request sends back (preserved thinking).

On a model that runs the check, a thinking block is bound to what came before it when it was
produced: ``system``, ``tools`` (deferred ones aside), every earlier message and the blocks before
it in its message, thinking blocks left out, key order, ``cache_control`` and JSON layout aside;
and to the thinking blocks that preceded it (a leading run may be removed, a gap or a block put back
may not). The newest ``compaction`` block before a block restarts the comparison, and a compaction
block may stand for the turns it summarised (the swap of on-demand compaction). The check compares
what the client sent, never the copy the server edits, so server-side clearing and compaction never
fail it.

The emulator keeps no state between requests: the signature it gives a block carries, under its
own HMAC, a short digest of each part of the block's prefix and of each thinking block before it,
so a later request of the same conversation is checked against the request that produced the block
(the first change is named by its path). A failed check answers the documented 400 under
``error`` (the default: the emulator answers as for an account created on or after 2026-08-31,
where the check is enforced on every model that runs it), or under ``drop_block`` drops each failing
block with the rest of its turn's consecutive thinking blocks (a block produced after the change is
bound to the changed prefix and passes) and, with the binding beta header, lists each in
``input_transformations`` (``thinking_dropped``, ``prefix_binding_mismatch``). Written apart from
``semantics`` and ``judge_thinking`` on purpose: the analyzer must not agree with itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

BETA = "thinking-binding-controls-2026-08-01"
# Model families that run the prefix check (a dated id, ``<family>-YYYYMMDD``, is the same model):
# Fable 5.2 and Mythos 5.2 on every account, Fable 5.1, Opus 5.5, Sonnet 5.5 and Haiku 5.5 by
# default on accounts created on or after 2026-08-31. Mythos 5.1 records the signature but does
# not run the check; Opus 5, Sonnet 5, Fable 5 and the 4.x models do not run it either.
CHECKING_FAMILIES = ("claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-opus-5-5",
                     "claude-sonnet-5-5", "claude-haiku-5-5")
THINKING = ("thinking", "redacted_thinking")
SIGNATURE_PREFIX = "emu-bind-"
# Signs the bindings this emulator writes, as the real API signs its own; not a credential.
_KEY = b"context-conformance emulator thinking binding"

ERROR_HEAD = ("Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the "
              "block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
ERROR_NEEDS_BETA = f"That setting requires the `{BETA}` value in the `anthropic-beta` header."
SYSTEM_CHANGED = "The `system` prompt differs from the one this block was created with."
CHAIN_BROKEN = "The `thinking` block that preceded this one when it was created is missing from this request."
REASON = "prefix_binding_mismatch"


def runs_check(model: str) -> bool:
    """Returns whether ``model`` runs the prefix check (its family is in ``CHECKING_FAMILIES``)."""
    return any(model == family or (model.startswith(family + "-") and model[len(family) + 1:].isdigit())
               for family in CHECKING_FAMILIES)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else content or []


def _short(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:10]


def _norm(block: Any) -> Any:
    """Returns a block or tool as the check compares it: ``cache_control`` and null fields left out."""
    if isinstance(block, dict):
        return {k: _norm(v) for k, v in block.items() if k != "cache_control" and v is not None}
    if isinstance(block, list):
        return [_norm(v) for v in block]
    return block


def _system(body: dict[str, Any]) -> str:
    system = body.get("system")
    parts = [{"type": "text", "text": system}] if isinstance(system, str) else system or []
    return _short(_norm(parts))


def _tools(body: dict[str, Any]) -> str:
    return _short([_norm(t) for t in body.get("tools") or [] if not (isinstance(t, dict) and t.get("defer_loading"))])


def identity(block: dict[str, Any]) -> str:
    """Returns the short digest that names a thinking block in the chain of the blocks after it."""
    return _short(block.get("signature") if block.get("type") == "thinking" else block.get("data"))


def _start(messages: list[dict[str, Any]], i: int, j: int) -> tuple[int, int, bool]:
    """Returns where the checked prefix of block ``(i, j)`` starts: the newest compaction block with
    content before it (and True), else the first block of the first message (and False)."""
    for m in range(i, -1, -1):
        blocks = _blocks(messages[m])
        for k in range(min(j, len(blocks)) - 1 if m == i else len(blocks) - 1, -1, -1):
            if blocks[k].get("type") == "compaction" and blocks[k].get("content"):
                return m, k, True
    return 0, 0, False


@dataclass
class Prefix:
    """What a block's prefix check compares: digests of ``system``, ``tools`` and, per message from the
    start (``at``), its role and each block other than thinking; and the thinking blocks before it."""

    system: str
    tools: str
    rows: list[list[Any]]
    chain: list[str]
    compacted: bool
    at: tuple[int, int] = (0, 0)

    def record(self) -> dict[str, Any]:
        """Returns the birth record a signature carries."""
        return {"s": self.system, "t": self.tools, "m": self.rows, "c": self.chain, "k": self.compacted}


def prefix(body: dict[str, Any], messages: list[dict[str, Any]], i: int, j: int) -> Prefix:
    """Returns the prefix of the block at ``messages[i].content[j]`` (``j`` may be one past the end)."""
    ci, cj, compacted = _start(messages, i, j)
    rows: list[list[Any]] = []
    chain: list[str] = []
    for m in range(ci, i + 1):
        blocks = _blocks(messages[m])[cj if m == ci else 0: j if m == i else None]
        rows.append([str(messages[m].get("role")), [_short(_norm(b)) for b in blocks if b.get("type") not in THINKING]])
        chain += [identity(b) for b in blocks if b.get("type") in THINKING]
    return Prefix(_system(body), _tools(body), rows, chain, compacted, (ci, cj))


def _mac(thinking: str, payload: str) -> str:
    return hmac.new(_KEY, f"{thinking}\n{payload}".encode(), hashlib.sha256).hexdigest()[:40]


def sign(thinking: str, born: Prefix) -> str:
    """Returns the signature of a thinking text produced after ``born``: its birth record and an HMAC."""
    payload = base64.urlsafe_b64encode(json.dumps(born.record(), separators=(",", ":")).encode()).decode().rstrip("=")
    return f"{SIGNATURE_PREFIX}{payload}.{_mac(thinking, payload)}"


def birth(signature: str, thinking: str) -> dict[str, Any] | None:
    """Returns the birth record a bound signature carries; None when the signature is not bound or not
    this emulator's (the caller's own signature check refuses that one)."""
    if not signature.startswith(SIGNATURE_PREFIX) or "." not in signature:
        return None
    payload, mac = signature[len(SIGNATURE_PREFIX):].rsplit(".", 1)
    if not hmac.compare_digest(mac, _mac(thinking, payload)):
        return None
    try:
        record = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _full_index(message: dict[str, Any], k: int, skip: int) -> int:
    """Returns the index in the message's content of its ``k``-th block other than thinking, from ``skip`` on."""
    seen = 0
    blocks = _blocks(message)
    for index in range(skip, len(blocks)):
        if blocks[index].get("type") in THINKING:
            continue
        if seen == k:
            return index
        seen += 1
    return len(blocks)


def _first_difference(then: list[list[Any]], now: list[list[Any]]) -> tuple[int, int] | None:
    """Returns ``(row, block)`` of the first difference between two row lists (blocks counted without
    thinking), or None when they are equal."""
    for r in range(max(len(then), len(now))):
        if r >= len(now):
            return len(now) - 1, len(now[-1][1])
        if r >= len(then) or then[r][0] != now[r][0]:
            return r, 0
        a, b = then[r][1], now[r][1]
        for k in range(max(len(a), len(b))):
            if k >= len(a) or k >= len(b) or a[k] != b[k]:
                return r, k
    return None


def mismatch(born: dict[str, Any], now: Prefix, messages: list[dict[str, Any]]) -> str | None:
    """Returns the sentence naming why a block born with record ``born`` fails against ``now`` (empty
    where the service names no cause: a change of ``tools``), or None when it passes."""
    if born.get("s") != now.system:
        return SYSTEM_CHANGED
    if born.get("t") != now.tools:
        return ""
    then_rows, rows, skip = list(born.get("m") or []), now.rows, 0
    if now.compacted and not born.get("k"):
        # the swap: a compaction block stands for the turns it summarised; what follows it is compared
        # with the end of the block's birth prefix
        rows, skip = now.rows[1:], 1
        then_rows = then_rows[len(then_rows) - len(rows):] if len(rows) <= len(then_rows) else then_rows
    where = _first_difference(then_rows, rows)
    if where is not None:
        r, k = where[0] + skip, where[1]
        i = now.at[0] + r
        j = _full_index(messages[i], k, now.at[1] if r == 0 else 0)
        return f"Content before this block differs from when it was created, first at `messages.{i}.content.{j}`."
    chain = list(born.get("c") or [])
    if len(now.chain) > len(chain) or chain[len(chain) - len(now.chain):] != now.chain:
        return CHAIN_BROKEN
    return None


@dataclass
class Result:
    """The check of one request: the 400 message (None when accepted), the paths of the thinking
    blocks dropped, and whether the answer reports ``input_transformations``."""

    error: str | None = None
    dropped: list[str] = field(default_factory=list)
    reported: bool = False

    def transformations(self) -> list[dict[str, str]]:
        """Returns the ``input_transformations`` entries of the answer."""
        return [{"type": "thinking_dropped", "path": path, "reason": REASON} for path in self.dropped]


def _thinking_after_compaction(messages: list[dict[str, Any]]) -> list[tuple[int, int, dict[str, Any]]]:
    """Returns every thinking block the server reads (none before the newest compaction block), in order."""
    found = [(i, j, b) for i, m in enumerate(messages) for j, b in enumerate(_blocks(m))]
    last = max((n for n, (_, _, b) in enumerate(found) if b.get("type") == "compaction" and b.get("content")),
               default=-1)
    return [(i, j, b) for i, j, b in found[last + 1:] if b.get("type") in THINKING]


def check(body: dict[str, Any], betas: set[str], every_block_fails: bool = False, off: bool = False,
          every_model: bool = False) -> Result:
    """Returns the prefix check of a request. Faults: ``every_block_fails`` fails every thinking block
    sent, ``off`` runs no check on any model, ``every_model`` runs it on every model."""
    given = body.get("thinking")
    thinking: dict[str, Any] = given if isinstance(given, dict) else {}
    binding = thinking.get("block_binding")
    header = BETA in betas
    if binding is not None and not header:
        where = f"thinking.{thinking['type']}." if thinking.get("type") else "thinking."
        return Result(f"{where}block_binding: Extra inputs are not permitted")
    result = Result(reported=header)
    if off or not (every_model or runs_check(str(body.get("model", "")))):
        return result
    messages = body["messages"]
    behavior = binding.get("prefix_mismatch_behavior", "error") if isinstance(binding, dict) else "error"
    dropped: set[tuple[int, int]] = set()
    for i, j, block in _thinking_after_compaction(messages):
        born = birth(str(block.get("signature", "")), str(block.get("thinking", "")))
        if every_block_fails:
            sentence: str | None = ""
        elif born is None or (i, j) in dropped:
            continue  # not bound (produced where the check does not run), or dropped with the block before it
        else:
            sentence = mismatch(born, prefix(body, messages, i, j), messages)
        if sentence is None:
            continue
        if behavior != "drop_block":
            parts = [f"messages.{i}.content.{j}: {ERROR_HEAD}", *([] if header else [ERROR_NEEDS_BETA]),
                     *([sentence] if sentence else [])]
            result.error = " ".join(parts)
            return result
        dropped.add((i, j))
        rest = _blocks(messages[i])[j + 1:]  # the rest of that turn's consecutive thinking blocks go with it
        for k, later in enumerate(rest, start=j + 1):
            if later.get("type") not in THINKING:
                break
            dropped.add((i, k))
    result.dropped = [f"messages.{i}.content.{j}" for i, j in sorted(dropped)]
    return result


def without(messages: list[dict[str, Any]], paths: list[str]) -> list[dict[str, Any]]:
    """Returns the messages with the blocks at ``paths`` (``messages.<i>.content.<j>``) left out."""
    gone = {tuple(int(x) for x in p.split(".")[1::2]) for p in paths}
    return [{**m, "content": [b for j, b in enumerate(_blocks(m)) if (i, j) not in gone]} if any(
        g[0] == i for g in gone) else m for i, m in enumerate(messages)]
