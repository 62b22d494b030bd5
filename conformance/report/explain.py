"""``conformance explain ID``: one scenario or provider probe in the terminal, boundary marked.

Messages are listed one per line with each block labelled by type (reasoning as hash and length,
never its text), then the truth and the expectations, and with a target what it did to the history.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._text import fit
from ..engine.history_lines import boundary_line, messages_lines
from ..engine.redaction import Redactor, secrets_in
from ..engine.results import CheckResult
from ..engine.runner import RunOptions, check_scenario, observe
from ..engine.spec import Scenario, load
from ..engine.target import Target
from ..engine.tracebacks import scrub_credentials
from ..engine.transcript import find_live_start
from .timeline import MessageView, align, counts, labeller

_DEFAULT_OPTIONS = RunOptions()
_MARK = {"pass": "pass", "fail": "FAIL", "error": "ERROR", "skip": "skip", "xfail": "xfail", "xpass": "XPASS"}


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in params.items()) or "none"


def _expectations(scenario: Scenario) -> list[str]:
    expect = scenario.expect
    chosen = "all that apply" if expect.invariants is None else ", ".join(expect.invariants)
    lines = ["expectations:", f"  invariants: {chosen}"]
    for name, why in expect.skip.items():
        lines.append(f"  skip {name}: {why}")
    lines.append(f"  refusal allowed: {'yes' if expect.refusal_allowed else 'no'}")
    if expect.reference_raises:
        lines.append(f"  reference raises: {expect.reference_raises}")
    elif expect.reference_output is not None:
        lines.append(f"  reference output: {len(expect.reference_output)} messages")
        lines += ["  " + line for line in messages_lines(expect.reference_output, len(expect.reference_output) + 1)[:-1]]
    return lines


def _row(row: MessageView) -> str:
    where = f"{row.index if row.index is not None else '-'}→{row.out_index if row.out_index is not None else '-'}"
    # a block's status is said when it differs from its message's ("REMOVED thinking", not "thinking (removed)")
    labels = " · ".join(b.label + ("" if b.status in ("kept", row.status) else f" ({b.status})") for b in row.blocks)
    note = f" [{row.note}]" if row.note else ""
    return f"  [{where:>7}] {row.role:<9} {row.status.upper() if row.status != 'kept' else 'kept':<8} {labels}{note}"


def _target_lines(scenario: Scenario, target: Target, options: RunOptions) -> tuple[list[str], list[CheckResult]]:
    """Returns the lines of what ``target`` did to ``scenario`` and the results of its checks."""
    obs = observe(target, scenario, options)
    results = check_scenario(target, scenario, options, obs)  # redacted by the runner
    second = obs.second
    secrets = [*secrets_in(scenario.history), *secrets_in(obs.output),
               *secrets_in(second.output if second is not None else None)]
    redactor = Redactor(secrets)
    lines = [f"target {target.name}:"]
    if obs.timed_out:
        lines.append(f"  hung: {obs.error}")
    elif obs.error_type:
        lines.append(scrub_credentials(redactor.text(f"  raised {obs.error_type}: {obs.error}")))
    else:
        size = len(obs.output) if isinstance(obs.output, list) else type(obs.output).__name__
        lines.append(f"  returned {size} messages in {obs.elapsed:.3f} s"
                     + ("; it changed the input it was given" if obs.mutated else ""))
        rows = align(scenario.history, obs.output, scenario.truth.live_start, labeller(secrets))
        tally = counts(rows)
        lines.append("  " + ", ".join(f"{n} {k}" for k, n in tally.items()) + " (input → output):")
        marked = False
        for row in rows:
            if not marked and row.index is not None and row.index >= scenario.truth.live_start:
                lines.append(boundary_line(scenario.truth.live_start, len(scenario.history)))
                marked = True
            lines.append(_row(row))
    lines.append("results:")
    for result in results:
        lines.append(f"  {_MARK[result.outcome]:<5} {result.level:<9} {result.invariant}"
                     + (f": {result.message}" if result.message else ""))
        lines += [f"        {d}" for d in result.details.get("diff", [])]
        for side in ("expected", "returned"):
            lines += [f"        {side} {result.details[side]}"] if side in result.details else []
            native = result.details.get(f"{side}_native")  # the same, in the target's own format
            lines += [f"          {native}"] if native else []
        lines += [f"        {t}" for t in str(result.details.get("traceback", "")).splitlines()]
    return lines, results


def explain_scenario(scenario: Scenario, target: Target | None = None,
                     options: RunOptions = _DEFAULT_OPTIONS) -> str:
    """Returns the terminal explanation of a scenario, and what ``target`` did to it when given."""
    return explain_scenario_results(scenario, target, options)[0]


def explain_scenario_results(scenario: Scenario, target: Target | None = None,
                             options: RunOptions = _DEFAULT_OPTIONS) -> tuple[str, list[CheckResult]]:
    """Returns ``explain_scenario``'s text and the results of ``target``'s checks on the scenario
    (none without a target), so that a caller can exit as ``run`` would for them."""
    results: list[CheckResult] = []
    truth = scenario.truth
    features = ", ".join(scenario.features) or "none"
    found = find_live_start(scenario.history)
    lines = [f"scenario {scenario.id}  ({scenario.path}:{scenario.line})",
             f"  {scenario.description}",
             f"  family {scenario.family} · features {features} · params {_params(scenario.params)}",
             "", f"messages ({len(scenario.history)}):", *messages_lines(scenario.history, truth.live_start), "",
             "truth:",
             (f"  live_start: {truth.live_start} (task in flight: {len(scenario.live_span)} messages, "
              f"settled prefix: {len(scenario.settled_prefix)})"),
             f"  unanswered tool uses: {', '.join(truth.unanswered) or 'none'}",
             f"  the harness's own boundary analysis finds {found}"
             + (" (agrees)" if found == truth.live_start else " (differs from the declared truth)"),
             "", *_expectations(scenario)]
    if target is not None:
        target_lines, results = _target_lines(scenario, target, options)
        lines += ["", *target_lines]
    return "\n".join(lines[:1] + fit(lines[1:])), results  # the head names the file: whole, to copy


def explain_probe(probe: Any, cassette_roots: Sequence[Path] | None = None,
                  outcomes: list[str] | None = None) -> str:
    """Returns the terminal explanation of a provider probe: what its provider shows of it (request,
    messages or items, live span, prediction), then its recordings; appends the outcome of each
    recording (``pass``, ``fail``: a contradiction, ...) to ``outcomes`` when given."""
    from ..provider.base import of

    provider = of(getattr(probe, "provider", None))
    lines = [f"probe {probe.id}  ({probe.path}:{probe.line})", f"  {probe.description}",
             *provider.explain_lines(probe), "", *recorded_lines(probe, cassette_roots, outcomes)]
    return "\n".join(lines[:1] + fit(lines[1:]))


def recorded_lines(probe: Any, cassette_roots: Sequence[Path] | None = None,
                   outcomes: list[str] | None = None) -> list[str]:
    """Returns what the recordings of ``probe`` under ``cassette_roots`` (default: the shipped ones)
    show, each as its provider says it; appends each recording's outcome to ``outcomes`` when given."""
    from ..provider import default_cassettes
    from ..provider.base import of
    from ..provider.verify import check_cassette

    provider = of(getattr(probe, "provider", None))
    roots = list(cassette_roots) if cassette_roots is not None else [default_cassettes()]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob(f"{probe.id}.yaml"))
    if not files:
        return ["recorded: no recording of this probe (run `conformance record --probe " + probe.id + "`)"]
    lines = ["recorded:"]
    for path in files:
        result = check_cassette(path, {probe.id: probe})
        if outcomes is not None:
            outcomes.append(result.outcome)
        source = " (local emulator, not the real service)" if result.target.startswith("emulator") else ""
        lines.append(f"  {result.target}{source}: {path}")
        lines += provider.recording_lines(result)
    return lines



def find(subject: str, spec_paths: Sequence[str | Path]) -> tuple[Scenario | Any | None, list[str]]:
    """Returns the scenario or probe called ``subject`` under ``spec_paths``, or the one whose id
    starts with it; else None and the ids it starts (when several) or near ids."""
    scenarios = {s.id: s for s in load(spec_paths).scenarios}
    if subject in scenarios:
        return scenarios[subject], []
    probes: dict[str, Any] = {}
    try:
        from ..provider.probes import load_probes
    except ImportError:
        pass
    else:
        probes, _ = load_probes([Path(p) for p in spec_paths])
    if subject in probes:
        return probes[subject], []
    known = {**probes, **scenarios}
    starting = sorted(name for name in known if name.startswith(subject))
    if len(starting) == 1:  # a prefix that names one scenario or probe is taken, as -k takes it
        return known[starting[0]], []
    if starting:  # several: those it names, not the merely similar
        return None, starting
    return None, difflib.get_close_matches(subject, [*scenarios, *probes], n=5, cutoff=0.4)
