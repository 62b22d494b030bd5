"""What the judge of one API shares: the opening every interaction goes through before the API's
own rules read its request."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._json import is_mapping
from ..recordings import Interaction
from .earlier import Earlier, indexed
from .model import Judgement, not_a_request


class RequestJudge:
    """A judge whose ``judge`` indexes the interactions before one when given as a list, decides a
    body that is not a request (``not_a_request``, with ``response_only`` for an answer recorded
    without its request) and hands the rest to ``judge_request``. A subclass names its ``provider``
    and ``api`` (e.g. "Messages") and defines ``remember``, ``response_only`` and ``judge_request``."""

    provider: str
    api: str
    # Notes in the index what a later interaction may follow back to this one (the judge module's
    # function itself: a stream calls it for every interaction, each judge's).
    remember: Callable[[Interaction, Earlier], None]
    # Returns the verdict on an answer recorded without its request.
    response_only: Callable[[Interaction, Mapping[str, Any]], Judgement]

    def judge_request(self, item: Interaction, request: Mapping[str, Any], earlier: Earlier) -> Judgement:
        """Returns the verdict on an interaction whose request is a JSON object."""
        raise NotImplementedError

    def judge(self, item: Interaction, earlier: Earlier | Sequence[Interaction]) -> Judgement:
        """Returns the verdict on one interaction of the API; ``earlier`` is the index of the
        interactions before it (or those interactions, indexed here)."""
        index = indexed(earlier, self.remember)
        shape = not_a_request(item, self.provider, self.api, self.response_only)
        if shape is not None:
            return shape
        request = item.request
        assert is_mapping(request)  # (not_a_request decided every other body)
        return self.judge_request(item, request, index)
