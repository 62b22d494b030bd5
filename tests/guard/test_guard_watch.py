"""What the guard reads comes from the judges (``provider.base.Watch``): a judge's paths are watched and
no other; of its ``plain`` paths, a call whose request names none of its words passes unparsed, named
after that judge's provider, unless its answer is a rejection or names a reported word."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.guard import Guard
from conformance.provider.analyze.model import NO_EDIT, NOT_JUDGED, Judgement, start
from conformance.provider.base import Watch
from conformance.provider.recordings import Interaction


class ToyJudge:
    """A judge of a made-up API: every call it is asked about gets a verdict that says it was judged."""

    provider = "toyllm"
    watch = Watch(paths=("/trim",), plain=("/trim",), words=(b'"trim"',), reported=(b"trim_refused",))

    def __init__(self) -> None:
        self.asked: list[Interaction] = []

    def claims(self, interaction: Interaction) -> bool:
        return interaction.endpoint.endswith("/trim")

    def judge(self, interaction: Interaction, earlier: Any | Sequence[Interaction]) -> Judgement:
        self.asked.append(interaction)
        return start(interaction, self.provider, NO_EDIT)


def exchange(guard: Guard, path: str, request: dict[str, Any], answer: dict[str, Any], status: int = 200) -> Judgement:
    return guard.judge(f"http://127.0.0.1:9{path}", "POST", json.dumps(request).encode(), json.dumps(answer).encode(),
                       status, "application/json")


def test_the_guard_watches_the_paths_its_judges_declare_and_no_other() -> None:
    guard = Guard(policy=[], judges=[ToyJudge()])
    assert guard.watches("/v1/trim") and guard.watches("/v1/trim/")
    assert not guard.watches("/v1/messages") and not guard.watches("/v1/responses")
    shipped = Guard(policy=[])
    assert shipped.watches("/v1/messages") and shipped.watches("/v1/responses/compact")
    assert not shipped.watches("/v1/trim")


def test_a_plain_call_passes_unparsed_under_its_judges_provider() -> None:
    toy = ToyJudge()
    guard = Guard(policy=[], judges=[toy])
    plain = exchange(guard, "/v1/trim", {"history": ["a", "b"]}, {"kept": ["b"]})
    assert (plain.verdict, plain.provider) == (NOT_JUDGED, "toyllm") and toy.asked == []
    judged = exchange(guard, "/v1/trim", {"history": ["a", "b"], "trim": 1}, {"kept": ["b"]})
    assert judged.verdict == NO_EDIT and len(toy.asked) == 1  # it names a word: parsed and judged


def test_an_answer_that_reports_something_or_refuses_is_judged_whatever_its_request() -> None:
    toy = ToyJudge()
    guard = Guard(policy=[], judges=[toy])
    exchange(guard, "/v1/trim", {"history": ["a"]}, {"error": "trim_refused"})
    exchange(guard, "/v1/trim", {"history": ["a"]}, {"error": "bad request"}, status=400)
    assert len(toy.asked) == 2
