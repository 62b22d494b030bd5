"""The egress pytest route: ``pytest --egress-target MODULE:ATTR --egress-surface NAME`` runs every
egress conversation of the format as a test item, for vendors' CI.

Items are named ``egress:<conversation id>``, marked ``conformance``; a failure is rendered as the
CLI renders it, canary text withheld. Without ``--egress-target`` nothing is added.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..errors import ConformanceError
from ..plugin import ConformanceFailure, SpecErrorItem, add_sparing_spec_errors
from ..engine.results import must_checked
from ..engine.target import DEFAULT_TIME_LIMIT, resolve


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("egress", "egress conformance (no reasoning leaves, the answer always does)")
    group.addoption("--egress-target", metavar="MODULE:ATTR", default=None,
                    help="serializer conversation -> payload (for --egress-surface task-record, a store factory)")
    group.addoption("--egress-surface", metavar="NAME", default=None, help="the surface the payload goes to")
    group.addoption("--egress-format", metavar="NAME", default="anthropic", help="the message format the target takes")
    group.addoption("--egress-specs", nargs="+", metavar="PATH", default=None, help="egress conversation files or folders")
    group.addoption("--egress-time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                    help="per-call time limit")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> Iterator[None]:
    """Adds one item per egress conversation (and one failing item per spec error, held back from
    ``-k`` / ``-m`` deselection)."""
    name = config.getoption("egress_target")
    if not name:
        return (yield)
    from .conversations import FORMATS, load
    from .surfaces import surface

    try:
        target = resolve(name)
        chosen = surface(config.getoption("egress_surface") or "")
    except ConformanceError as exc:
        raise pytest.UsageError(str(exc)) from None
    fmt = config.getoption("egress_format")
    if fmt not in FORMATS:
        raise pytest.UsageError(f"unknown egress format {fmt!r}; known: {', '.join(FORMATS)}")
    loaded = load(config.getoption("egress_specs"))
    run = EgressRun.from_parent(session, name="egress")
    run.setup_items(target, chosen, [c for c in loaded.conversations if c.format == fmt], loaded.errors,
              config.getoption("egress_time_limit"))
    return (yield from add_sparing_spec_errors(items, session.genitems(run)))  # -k / -m never drop a spec error


class EgressRun(pytest.Collector):
    """The egress items of a run."""

    def setup_items(self, target: Any, chosen: Any, conversations: list[Any], errors: list[Any], time_limit: float) -> None:
        self._args = (target, chosen, conversations, errors, time_limit)

    def collect(self) -> list[pytest.Item]:
        target, chosen, conversations, errors, time_limit = self._args
        out: list[pytest.Item] = []
        for error in errors:
            item = EgressSpecError.from_parent(self, name=f"spec-error:{Path(error.path).name}:{error.line or 0}", error=error)
            out.append(item)
        for conversation in conversations:
            case = EgressItem.from_parent(self, name=conversation.id, conversation=conversation, target=target,
                                          chosen=chosen, time_limit=time_limit)
            case.add_marker(pytest.mark.conformance)
            out.append(case)
        return out


class EgressItem(pytest.Item):
    """One conversation through one serializer or store."""

    def __init__(self, *, conversation: Any, target: Any, chosen: Any, time_limit: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.conversation, self.target, self.chosen, self.time_limit = conversation, target, chosen, time_limit

    def runtest(self) -> None:
        from . import store
        from .run import UNJUDGED, check, unjudged
        from .surfaces import ENCRYPTED

        if self.chosen.reasoning == ENCRYPTED:
            results = store.run(self.target.name, [self.conversation], time_limit=self.time_limit).results
        else:
            results = check(self.target, self.conversation, self.chosen, self.time_limit)
        failing = [r for r in results if r.level == "MUST" and r.outcome in ("fail", "error")]
        if failing:
            raise ConformanceFailure(failing, "egress check")
        if not must_checked(results):
            raise pytest.skip.Exception("nothing checked: " + ", ".join(sorted({r.message for r in results})),
                                        _use_item_location=True)  # at the conversation's file and line
        if unjudged(results):  # nothing written: a skipped call of a sampler is no pass
            raise pytest.skip.Exception(next(r.message for r in results if r.outcome == "skip" and UNJUDGED in r.details),
                                        _use_item_location=True)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            from ..report.terminal import render_failure

            lines = [f"conversation {self.conversation.id}: {self.conversation.description}",
                     f"target {self.target.name} on surface {self.chosen.name}"]
            for result in excinfo.value.results:
                lines.extend(render_failure(result, f"{self.conversation.path}:{self.conversation.line}"))
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.conversation.path), max(self.conversation.line - 1, 0), f"egress {self.conversation.id}"


class EgressSpecError(SpecErrorItem):
    """A malformed part of an egress file, reported as a failing item naming file, line and field
    (located at the run: the route has no file node)."""

    reportinfo = pytest.Item.reportinfo
