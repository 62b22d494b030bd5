"""``conformance explain FILE --interaction N``: one interaction of a recording, as the analyzer judges it.

The recording is read with the streaming readers and judged with the analyzer's judges up to that
interaction (so chains to earlier interactions of the same file are followed); then the request's
history is listed item by item with the task in flight marked where the judge found it, then the
verdict and its evidence. Reasoning shows as hash and length, never as its text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._text import fit, plural
from ..provider.analyze.earlier import Earlier
from ..provider.analyze.judging import judge_stream
from ..provider.analyze.model import ERROR, Judgement
from ..provider.analyze.registry import judges
from ..provider.base import all_providers
from ..provider.recordings import Interaction, RecordingError, iter_recording
from ..engine.history_lines import marked_lines, sized
from ..engine.redaction import Redactor, block_label, secrets_in
from ..engine.tracebacks import scrub_credentials
from ..engine.transcript import blocks


class ExplainError(ValueError):
    """An interaction that cannot be explained: no such file, no such index, an unreadable record."""


@dataclass
class Explained:
    """One interaction of a recording with its judgement and the history the judge read."""

    item: Interaction
    judgement: Judgement
    history: list[Any]


def _block(block: Any) -> str:
    """Returns a block's label; a compaction block's summary as hash and length."""
    if isinstance(block, Mapping) and block.get("type") == "compaction":
        content = block.get("content")
        return sized("compaction", content) if isinstance(content, str) else "compaction (no content)"
    return block_label(block)


def item_label(item: Any) -> str:
    """Returns the one-line summary of one history item: the label of the first provider that knows
    its shape (``item_label``: another API's input item), else a message of the suite's own shape
    (role, then each block by type and id or text prefix); reasoning as hash and length."""
    if not isinstance(item, Mapping):
        return type(item).__name__
    for provider in all_providers():
        label = getattr(provider, "item_label", None)
        found = label(item) if label is not None else None
        if found is not None:
            return str(found)
    return f"{item.get('role', '?')!s:<9} " + (" · ".join(_block(b) for b in blocks(item)) or "(no content)")


def _item_secrets(history: Sequence[Any]) -> Iterator[str]:
    """Yields the reasoning text of the history's items each provider knows the shape of
    (``item_secrets``: another API's reasoning items), for the redactor."""
    for provider in all_providers():
        secrets = getattr(provider, "item_secrets", None)
        if secrets is not None:
            for item in history:
                if isinstance(item, Mapping):
                    yield from secrets(item)


def _own_history(request: Any) -> list[Any]:
    """Returns the history a request carries itself: its ``messages``, else its ``input``."""
    if not isinstance(request, Mapping):
        return []
    for key in ("messages", "input"):
        value = request.get(key)
        if isinstance(value, list):
            return value
        if isinstance(value, str):
            return [{"role": "user", "content": value}]
    return []


def _tracked(items: Iterator[Interaction], seen: list[Interaction]) -> Iterator[Interaction]:
    """Yields ``items``, keeping the last one yielded in ``seen`` (so its judgement can be paired with it)."""
    for item in items:
        seen[:] = [item]
        yield item


def find_interaction(path: Path, index: int) -> Explained:
    """Returns interaction ``index`` of the recording at ``path``, judged after every interaction
    before it. Raises ``ExplainError`` when the file is missing or not a recording, when no
    interaction has that index, or when that interaction cannot be read."""
    if not path.is_file():
        raise ExplainError(f"{path}: no such file" if not path.exists() else f"{path}: is not a file")
    if index < 0:
        raise ExplainError(f"--interaction {index}: an interaction index is 0 or more")
    available = judges()
    earlier, last = Earlier(), None
    seen: list[Interaction] = []
    stream = judge_stream(_tracked(iter_recording(path), seen), available, earlier)
    try:
        for found, _ in stream:
            item = seen[0]
            last = item.index
            if item.index < index:
                continue
            if item.index > index:
                break
            if found.verdict == ERROR:
                raise ExplainError(f"{path}: {item.where} cannot be read: {found.error}")
            judge = next((j for j in available if j.provider == found.provider), None)
            rebuild = getattr(judge, "history", None)
            history = list(rebuild(item, earlier)) if rebuild is not None else _own_history(item.request)
            return Explained(item, found, history)
    except RecordingError as exc:
        raise ExplainError(str(exc)) from None
    finally:  # the file is not read past the interaction asked for: close it now
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    held = "no interaction" if last is None else f"interactions 0 to {last}"
    raise ExplainError(f"{path} holds {held}: no interaction {index}")


def _response_line(response: Any) -> str:
    """Returns the one-line summary of the response: its content blocks or output items."""
    if not isinstance(response, Mapping):
        return "response: none recorded" if response is None else f"response: a JSON {type(response).__name__}"
    if isinstance(response.get("content"), list):
        return "response: " + (" · ".join(_block(b) for b in response["content"]) or "(no content)")
    if isinstance(response.get("output"), list):
        return "response: " + (" · ".join(" ".join(item_label(o).split())
                                          if isinstance(o, Mapping) else "?" for o in response["output"]) or "(no output)")
    return "response: " + ", ".join(sorted(map(str, response))[:8])


def history_lines(history: Sequence[Any], live_start: int | None) -> list[str]:
    """Returns one line per history item, the boundary line drawn before ``live_start`` (or after
    the last item when the history ends settled); no boundary when ``live_start`` is None."""
    return marked_lines(history, live_start, lambda n, item: f"  [{n}] {item_label(item)}")


def explain_interaction(path: Path, index: int) -> tuple[str, str]:
    """Returns the terminal explanation of interaction ``index`` of the recording at ``path`` (where
    it sits, its request history with the task in flight marked, the response, the verdict and its
    evidence) and the verdict. Raises ``ExplainError`` as ``find_interaction`` does."""
    explained = find_interaction(path, index)
    item, found, history = explained.item, explained.judgement, explained.history
    what = "messages" if isinstance(item.request, Mapping) and "messages" in item.request else "items"
    lines = [f"recording {path}, interaction {index}"
             + (f" (line {item.line})" if item.line else "") + (f" · {item.dialect}" if item.dialect else ""),
             f"  provider {found.provider}"
             + (f" · {item.method} {found.endpoint}" if item.request is not None or item.url else "")
             + (f" · model {found.model}" if found.model else "") + (f" · strategy {found.strategy}" if found.strategy else ""),
             ""]
    if item.request is None:
        lines.append("request history: none recorded (a response-only record); the judge reads the response alone")
    else:
        counted = f"; the judge counted {found.history}" if found.history not in (None, len(history)) else ""
        lines.append(f"request history ({plural(len(history), what[:-1])}{counted}):")
        lines += history_lines(history, found.live_start)
        if found.live_start is None:
            lines.append("  (no task in flight was located: the judge did not judge this interaction)")
    lines += ["", _response_line(item.response), "", f"verdict: {found.verdict}"]
    if found.live_start is not None:
        lines.append(f"  task in flight: from {'message' if what == 'messages' else 'item'} {found.live_start}"
                     f" of {found.history}" + (" (the history ends settled)" if found.live_start == found.history else ""))
    lines += ["evidence:", *(f"  - {e}" for e in found.evidence or ["(none)"])]
    redactor = Redactor([*secrets_in(history), *secrets_in(item.response), *_item_secrets(history)])
    safe = [scrub_credentials(redactor.text(line)) for line in lines]
    return "\n".join(safe[:1] + fit(safe[1:])), found.verdict
