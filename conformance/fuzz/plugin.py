"""The pytest side of fuzzing: ``--conformance-fuzz N`` adds one item per target that runs N
generated histories and, on a failure, writes the shrunk scenario and shows it like the CLI."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .cli import DEFAULT_OUT, reproduce_command, write_counterexample
from ..report.terminal import render_failure
from ..engine.results import CheckResult
from ..engine.target import Target


class FuzzFailure(Exception):
    """Raised by a fuzz item whose target broke a MUST invariant on a generated history."""

    def __init__(self, failures: Sequence[CheckResult], path: Path, size: int) -> None:
        super().__init__(f"counterexample written to {path}")
        self.failures, self.path, self.size = list(failures), path, size


class FuzzItem(pytest.Item):
    """N generated histories against one target."""

    def __init__(self, *, target: Target, examples: int, seed: int, time_limit: float, fmt: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target, self.examples, self.seed, self.time_limit = target, examples, seed, time_limit
        self.fmt = fmt  # the message format the target speaks; the fuzzer wraps it

    def runtest(self) -> None:
        from .engine import FuzzOptions, run_fuzz

        result = run_fuzz(self.target, FuzzOptions(examples=self.examples, seed=self.seed,
                                                   time_limit=self.time_limit, format=self.fmt))
        if not result.passed:
            assert result.scenario is not None
            path = write_counterexample(result, self.seed, Path(self.config.rootpath) / DEFAULT_OUT, self.fmt)
            raise FuzzFailure(result.failures, path, len(result.scenario.history))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, FuzzFailure):
            failure = excinfo.value
            lines = [f"target {self.target.name}: a generated history shrunk to {failure.size} messages "
                     f"breaks a MUST invariant (seed {self.seed})"]
            for result in failure.failures:
                lines.extend(render_failure(result, str(failure.path)))
            lines.append(f"reproduce: {reproduce_command(failure.path, self.target.name, self.fmt)}")
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"fuzz {self.target.name}"


def fuzz_items(session: pytest.Session, targets: Sequence[Target], examples: int, seed: int,
               time_limit: float, fmt: str | None = None) -> Iterator[pytest.Item]:
    """Yields one ``FuzzItem`` per target, marked ``conformance``."""
    for target in targets:
        item = FuzzItem.from_parent(session, name=f"fuzz[{target.name}]", target=target, examples=examples,
                                    seed=seed, time_limit=time_limit, fmt=fmt)
        item.add_marker(pytest.mark.conformance)
        yield item
