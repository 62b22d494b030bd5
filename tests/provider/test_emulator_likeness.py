"""The emulator held to real recordings: for every feature the real Anthropic recordings exercise,
the JSON shape of the emulator's answers (keys, types, enum values, the order of content blocks and
of streamed events) must be the real one, except where the emulator declares a known simplification.

The real recordings are the fixtures under tests/provider/real/anthropic (made by another project
against the real API). Each of their requests is sent to the emulator as recorded, its trimmed
filler put back as their README describes, so the same feature fires on both sides.
"""

from __future__ import annotations

import fnmatch
import json
import re
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import anthropic
import pytest

from conformance.provider.anthropic import emulator as emu
from conformance.provider.anthropic import semantics as sem
from conformance.provider.anthropic.analyzer import analyze
from conformance.provider.anthropic.emulator import Emulator
from conformance.provider.anthropic.probes import Probe
from conformance.provider.recordings import sse
from .._yaml import load_yaml

REAL = Path(__file__).resolve().parent / "real" / "anthropic"
TRIMMED = re.compile(r"\[trimmed: the sentence above repeated (\d+) more times, (\d+) characters\] ")
SENTENCE = "The quick brown fox jumps over the lazy dog. "
ENUM_KEYS = {"type", "role", "stop_reason", "service_tier", "inference_geo"}
Facts = dict[str, set[Any]]


def expand(value: Any) -> Any:
    """Returns ``value`` with the README's trimmed filler put back (checked against its stated length)."""
    if isinstance(value, str):
        def back(match: re.Match[str]) -> str:
            text = SENTENCE * int(match.group(1))
            assert len(text) == int(match.group(2)), match.group(0)
            return text
        return TRIMMED.sub(back, value)
    if isinstance(value, list):
        return [expand(v) for v in value]
    if isinstance(value, dict):
        return {k: expand(v) for k, v in value.items()}
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}[type(value)]


def shape(value: Any, root: str = "") -> Facts:
    """Returns, per JSON path (``[]`` for any list item), the JSON types found there, the values of enum
    keys (``=value``) and, under ``PATH#order``, the order of the ``type`` of the items of each list."""
    facts: Facts = defaultdict(set)

    def walk(item: Any, path: str) -> None:
        facts[path].add(_kind(item))
        if isinstance(item, dict):
            for key, child in item.items():
                where = f"{path}.{key}" if path else key
                walk(child, where)
                if key in ENUM_KEYS and isinstance(child, str):
                    facts[where].add(f"={child}")
        elif isinstance(item, list):
            facts[f"{path}#order"].add(tuple(c.get("type") for c in item if isinstance(c, dict)))
            for child in item:
                walk(child, f"{path}[]")

    walk(value, root)
    return facts


def stream_shape(stream: list[tuple[str, Any]]) -> Facts:
    """Returns the shape of a streamed answer: each event's data under ``@name``, and under ``@order`` the
    order of events (with the block or delta type they carry), repeats of one event run together."""
    facts: Facts = defaultdict(set)
    order: list[str] = []
    for name, data in stream:
        for path, found in shape(data, f"@{name}").items():
            facts[path] |= found
        inner = (data.get("content_block") or data.get("delta") or {}) if name.startswith("content_block") else {}
        label = f"{name}:{inner.get('type')}" if inner.get("type") else name
        if not order or order[-1] != label:
            order.append(label)
    facts["@order"].add(tuple(order))
    return facts


def merged(many: list[Facts]) -> Facts:
    out: Facts = defaultdict(set)
    for facts in many:
        for path, found in facts.items():
            out[path] |= found
    return out


def declared(path: str) -> bool:
    """Returns whether the emulator declares a known simplification at ``path`` or above it."""
    return any(fnmatch.fnmatchcase(path, key) or path.startswith(key + ".") or path.startswith(key + "[")
               for key in emu.KNOWN_SIMPLIFICATIONS)


def differences(real: list[Facts], emulated: list[Facts]) -> list[str]:
    """Returns every way the emulated shapes differ from the real ones that is not declared."""
    union, mine = merged(real), merged(emulated)
    always = set.intersection(*(set(f) for f in real))
    found = []
    for path in sorted(set(union) | set(mine)):
        if declared(path):
            continue
        if path not in union:
            found.append(f"{path}: the emulator sends {sorted(map(str, mine[path]))}, real answers have no such field")
        elif path not in mine:
            if path in always:
                found.append(f"{path}: real answers always carry it ({sorted(map(str, union[path]))}), the emulator never")
        elif not mine[path] <= union[path]:
            found.append(f"{path}: the emulator sends {sorted(map(str, mine[path] - union[path]))}, "
                         f"real answers {sorted(map(str, union[path]))}")
    return found


def real_interactions() -> list[tuple[str, int, dict[str, Any], dict[str, Any] | None, str | None]]:
    """Returns (file, index, request, JSON answer or None, event-stream text or None) per real interaction."""
    found = []
    for path in sorted(REAL.glob("*.yaml")):
        for index, item in enumerate(load_yaml(path.read_text())["interactions"]):
            response = item["response"]
            text = (response.get("body") or {}).get("string")
            found.append((path.name, index, item["request"]["parsed_body"], response.get("parsed_body"), text))
    return found


def feature(request: dict[str, Any], answer: dict[str, Any]) -> str | None:
    """Returns the feature an interaction exercises, or None when it is one the emulator declares unemulated."""
    tools = {t.get("type") for t in request.get("tools") or []}
    if tools & set(emu.UNEMULATED_FEATURES):
        return None
    edits = "+".join(e["type"] for e in sem.edits_of(request)) or "no context management"
    carried = any(b.get("type") == "compaction" for m in request["messages"] for b in sem.content_blocks(m))
    fired = any(b.get("type") == "compaction" for b in answer["content"])
    return (f"{edits}, {'streamed' if request.get('stream') else 'json'}, "
            f"{'compaction fired' if fired else 'no compaction'}{', request carries a compaction block' if carried else ''}")


def send(url: str, request: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """Returns the emulator's answer to ``request`` (the real one, filler expanded): JSON, or the event stream."""
    body = expand(request)
    betas = sorted({sem.BETA_FOR_EDIT[e["type"]] for e in sem.edits_of(body)})
    call = urllib.request.Request(f"{url}/v1/messages", json.dumps(body).encode(), method="POST",
                                  headers={"x-api-key": "k", "content-type": "application/json",
                                           "anthropic-beta": ",".join(betas)})
    with urllib.request.urlopen(call, timeout=30) as reply:
        raw = reply.read().decode()
    return (None, raw) if body.get("stream") else (json.loads(raw), None)


def reassembled(text: str) -> dict[str, Any]:
    return sse.reassemble(text)


@pytest.fixture(scope="module")
def pairs() -> dict[str, list[tuple[Facts, Facts, str]]]:
    """Returns per feature the (real shape, emulated shape, where) of each real interaction."""
    grouped: dict[str, list[tuple[Facts, Facts, str]]] = defaultdict(list)
    with Emulator(0) as server:
        for file, index, request, answer, text in real_interactions():
            final = answer if answer is not None else reassembled(text or "")
            name = feature(request, final)
            if name is None:
                continue
            mine, mine_text = send(server.url, request)
            if text is not None:
                assert mine_text is not None, f"{file}#{index}: the emulator did not stream"
                grouped[name].append((stream_shape(sse.events(text)), stream_shape(sse.events(mine_text)),
                                      f"{file}#{index}"))
                answer, mine = final, reassembled(mine_text)
            grouped[name].append((shape(answer), shape(mine), f"{file}#{index}"))
    return grouped


def test_the_real_recordings_exercise_compaction_json_streamed_and_carried(
        pairs: dict[str, list[tuple[Facts, Facts, str]]]) -> None:
    assert set(pairs) == {"compact_20260112, json, compaction fired",
                          "compact_20260112, json, no compaction, request carries a compaction block",
                          "compact_20260112, streamed, compaction fired"}


def test_the_emulators_answers_have_the_real_shape_feature_by_feature(
        pairs: dict[str, list[tuple[Facts, Facts, str]]]) -> None:
    wrong = {}
    for name, members in pairs.items():
        streamed = [m for m in members if "@order" in m[0]]
        plain = [m for m in members if "@order" not in m[0]]
        for group in (streamed, plain):
            if group:
                found = differences([r for r, _, _ in group], [e for _, e, _ in group])
                if found:
                    wrong[f"{name} ({', '.join(w for _, _, w in group)})"] = found
    assert not wrong, json.dumps(wrong, indent=1)


def test_the_comparison_catches_an_emulator_that_drifts_from_the_real_shape(
        pairs: dict[str, list[tuple[Facts, Facts, str]]]) -> None:
    """The check can fail: each difference the recordings showed, put back, is caught by path."""
    [(real, mine, _)] = [m for m in pairs["compact_20260112, streamed, compaction fired"] if "@order" in m[0]]
    old_stream = stream_shape([("message_start", {"type": "message_start", "message": {"content": []}}),
                               ("content_block_start", {"type": "content_block_start", "index": 0,
                                                        "content_block": {"type": "compaction", "content": "s"}}),
                               ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                               ("message_delta", {"type": "message_delta",
                                                  "delta": {"stop_reason": "end_turn",
                                                            "context_management": {"applied_edits": []}}}),
                               ("message_stop", {"type": "message_stop"})])
    found = " ".join(differences([real], [old_stream]))
    assert "@content_block_start.content_block.content: the emulator sends ['string']" in found
    assert "@message_delta.delta.context_management: the emulator sends" in found
    assert "@message_delta.context_management: real answers always carry it" in found
    assert "@order" in found
    [(real_json, mine_json, _)] = [m for m in pairs["compact_20260112, json, compaction fired"]][:1]
    edited = merged([mine_json])
    edited["content#order"] = {("text", "compaction")}
    edited["stop_reason"] = {"string", "=compaction"}
    edited.pop("stop_details")
    found = " ".join(differences([real_json], [edited]))
    assert "content#order" in found and "stop_reason" in found and "stop_details: real answers always carry it" in found


def test_every_declared_simplification_names_a_path_and_a_reason() -> None:
    assert emu.KNOWN_SIMPLIFICATIONS and all(reason.strip() for reason in emu.KNOWN_SIMPLIFICATIONS.values())
    assert not declared("usage.input_tokens") and declared("usage.server_tool_use.web_search_requests")


def _relations(answer: dict[str, Any]) -> dict[str, Any]:
    """Returns what the recordings show about a compaction answer beyond its shape."""
    usage = answer["usage"]
    last = usage["iterations"][-1]
    return {"applied_edits": answer["context_management"]["applied_edits"],
            "passes": [i["type"] for i in usage["iterations"]],
            "top_level_is_the_last_pass": (usage["input_tokens"], usage["output_tokens"])
            == (last["input_tokens"], last["output_tokens"])}


def test_a_compaction_shows_only_as_a_block_and_iterations_and_usage_is_the_last_pass() -> None:
    with Emulator(0) as server:
        for file, index, request, answer, text in real_interactions():
            final = answer if answer is not None else reassembled(text or "")
            if feature(request, final) is None or not any(b["type"] == "compaction" for b in final["content"]):
                continue
            mine, mine_text = send(server.url, request)
            mine = mine if mine is not None else reassembled(mine_text or "")
            expected = {"applied_edits": [], "passes": ["compaction", "message"], "top_level_is_the_last_pass": True}
            assert _relations(final) == expected, f"{file}#{index}"  # what the real service did
            assert _relations(mine) == expected, f"{file}#{index}"


def test_a_request_carrying_a_compaction_block_is_read_from_that_block_on() -> None:
    """The server drops what lies before a compaction block: no second compaction on the next request."""
    [(request, answer)] = [(r, a) for f, i, r, a, _ in real_interactions()
                           if f == "test_anthropic_compaction_end_to_end.yaml" and i == 1]
    with Emulator(0) as server:
        mine, _ = send(server.url, request)
    assert mine is not None and [b["type"] for b in mine["content"]] == [b["type"] for b in answer["content"]] == ["text"]
    assert [i["type"] for i in mine["usage"]["iterations"]] == ["message"]


@pytest.mark.slow
@pytest.mark.parametrize("probe_id", ["compact.mid-task", "compact.after-settled-answer", "clear-tool-uses.keep-below-live-task",
                                      "compaction.after-tool-results"])
def test_the_analyzer_reads_the_streamed_and_the_json_answer_alike(probes: dict[str, Probe], probe_id: str) -> None:
    probe = probes[probe_id]
    with Emulator(0) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0, _strict_response_validation=True)
        plain = client.beta.messages.create(**probe.create_kwargs())
        with client.beta.messages.stream(**probe.create_kwargs()) as stream:
            streamed = stream.get_final_message()
        body = {**{k: v for k, v in probe.create_kwargs().items() if k != "betas"}, "stream": True}
        raw = urllib.request.urlopen(urllib.request.Request(
            f"{server.url}/v1/messages", json.dumps(body).encode(), method="POST",
            headers={"x-api-key": "k", "anthropic-beta": ",".join(probe.betas)}), timeout=30).read().decode()
    one, two = analyze(probe, plain), analyze(probe, streamed)
    assert one.to_dict() == two.to_dict() and one.verdict == probe.predict["verdict"]
    assert (streamed.context_management is None) == (plain.context_management is None)  # from message_delta
    rebuilt = reassembled(raw)  # the reader analyze uses for streamed recordings
    expected = plain.model_dump(mode="json", exclude_none=True)["content"]  # texts name the body's digest
    assert [(b["type"], sorted(b)) for b in rebuilt["content"]] == [(b["type"], sorted(b)) for b in expected]
    assert rebuilt.get("context_management") == plain.model_dump(mode="json")["context_management"]
    assert rebuilt["usage"].get("iterations") == plain.model_dump(mode="json", exclude_none=True)["usage"].get("iterations")
