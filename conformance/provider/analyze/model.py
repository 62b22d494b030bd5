"""What ``conformance analyze`` says about one recorded interaction: a provider-neutral ``Judgement``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ..._json import is_mapping
from ..recordings import Interaction

REACHED = "reached-live-task"
# The service dropped reasoning (a thinking block) of the task in flight from the request it was
# sent: the task goes on without what it had worked out (e.g. after the client changed what came
# before that block). A drop in settled history only is ``settled-only``.
LIVE_REASONING_LOST = "live-reasoning-lost"
# The service let reasoning of the task in flight through although its check of that block failed
# (an account or model where the check is not enforced): the task goes on from reasoning about a
# history that is no longer the one sent, and an enforcing service drops it or rejects the request.
LIVE_REASONING_STALE = "live-reasoning-stale"
# The service rejected the request because its history broke a rule (a tool result without its
# call, a block bound to another conversation...): the verdict names the rule and the message.
BROKEN_HISTORY = "broken-history"
SETTLED = "settled-only"
NO_EDIT = "no-edit"
REJECTED = "rejected"
INCONSISTENT = "inconsistent"
CANNOT_TELL = "cannot-tell"
NOT_JUDGED = "not-judged"
ERROR = "error"
# The verdicts a judge gives an interaction that uses context management, or whose answer reports
# what the service changed of its history or why it rejected it, worst first: when one interaction
# has several findings (a carried compaction, two edits, a dropped block), the worst one is its verdict.
VERDICTS = (REACHED, LIVE_REASONING_LOST, BROKEN_HISTORY, LIVE_REASONING_STALE, INCONSISTENT, CANNOT_TELL, REJECTED,
            SETTLED, NO_EDIT)
FAILING = frozenset({REACHED, LIVE_REASONING_LOST, BROKEN_HISTORY, LIVE_REASONING_STALE, INCONSISTENT})


def worst(verdicts: list[str]) -> str:
    """Returns the worst of ``verdicts`` in ``VERDICTS`` order (``no-edit`` for none)."""
    ranked = [v for v in VERDICTS if v in verdicts]
    return ranked[0] if ranked else NO_EDIT


@dataclass
class Judgement:
    """The verdict on one interaction, with the evidence a reader checks it by.

    ``live_start`` is the index (message or input item) where the task in flight begins in the
    request's own history, ``history`` that history's length (``live_start == history``: it ends
    settled); both ``None`` when not judged. ``evidence`` lines name ids, indices and counts, never
    reasoning text, credentials or message text. ``error`` is set (verdict ``error``) when the
    interaction cannot be read.
    """

    file: str
    index: int
    provider: str
    endpoint: str
    verdict: str
    model: str = ""
    strategy: str = ""
    live_start: int | None = None
    history: int | None = None
    evidence: list[str] = field(default_factory=list)
    error: str | None = None

    def __reduce__(self) -> tuple[type[Judgement], tuple[Any, ...]]:
        """Returns how pickle rebuilds the judgement: the class and its fields in order (a worker's
        judgements load in half the time the default state dictionary takes)."""
        return (Judgement, (self.file, self.index, self.provider, self.endpoint, self.verdict, self.model,
                            self.strategy, self.live_start, self.history, self.evidence, self.error))

    @property
    def judged(self) -> bool:
        """Returns whether a verdict was given (the interaction used context management, or its answer
        reported a change to its history or a rejection of it, and was read)."""
        return self.verdict in VERDICTS

    def to_dict(self) -> dict[str, Any]:
        """Returns the JSON record of ``--json``: file, index, provider, endpoint, model, strategy,
        live_start, history, verdict, evidence, error."""
        return asdict(self)


def start(item: Interaction, provider: str, verdict: str = NO_EDIT) -> Judgement:
    """Returns a Judgement for ``item`` with file, index, endpoint and model filled in."""
    response, model = item.response, None
    if isinstance(response, dict):
        model = response.get("model")
    if not model and isinstance(item.request, dict):
        model = item.request.get("model")
    return Judgement(item.file, item.index, provider, item.endpoint or "?", verdict, model=str(model or ""))


def failed(item: Interaction, provider: str, message: str) -> Judgement:
    """Returns the error Judgement of an interaction that cannot be read."""
    found = start(item, provider, ERROR)
    found.error = message
    return found


def not_a_request(item: Interaction, provider: str, api: str,
                  response_only: Callable[[Interaction, Mapping[str, Any]], Judgement] | None = None) -> Judgement | None:
    """Returns the verdict on an interaction whose request body is not a JSON object: what
    ``response_only`` says of an answer recorded without its request, ``not-judged`` for an upload or
    a request without a body, an error when the body could not be read; or None when the request is
    one for the judge of ``api`` (e.g. "Messages") to decide."""
    request = item.request
    if isinstance(request, dict):  # (a decoded body is a dict: no other shape to rule out)
        return None
    if request is None and response_only is not None and is_mapping(item.response) and item.error is None:
        return response_only(item, item.response)
    if request is not None and not isinstance(request, dict):  # a JSON-lines upload, a list
        found = start(item, provider, NOT_JUDGED)
        found.evidence.append(f"the request body is a JSON {type(request).__name__}, not a {api} request")
        return found
    if request is None and item.error is None:  # a GET without a body answered by a list, or nothing
        found = start(item, provider, NOT_JUDGED)
        found.evidence.append(f"no request body, and the response is not a {api} API answer")
        return found
    if not isinstance(request, dict):
        return failed(item, provider, item.error or "the request body is not a JSON object")
    return None
