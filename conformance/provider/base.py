"""What a provider is to the suite: the contract every provider package meets, and the registry
lookups the core dispatches through (on a probe file's or a result's ``provider`` key).

A provider package (``conformance/provider/anthropic/``, a third-party package...) exposes one
object meeting ``Provider`` and registers it in the ``context_conformance.providers`` entry-point
group (``conformance.registry``). The core (probe loading, ``verify``, ``record``, ``lint-config``,
``analyze``, ``explain``, ``drift``, cassette scrubbing and ``audit``) asks it for everything provider-specific and names no
provider itself. A provider object should import its SDK only inside the methods that need it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .. import registry

if TYPE_CHECKING:
    from .._recording import Recorded
    from ..engine.results import CheckResult
    from ..engine._yamlsource import Locator
    from .analyze.earlier import Earlier
    from .analyze.model import Judgement
    from .recordings import Interaction

KIND = "providers"


class ProviderProbe(Protocol):
    """What the core reads of any provider's probe."""

    id: str
    provider: str
    path: str
    line: int
    predict: dict[str, Any]

    @property
    def family(self) -> str:
        """Returns the strategy family the probe belongs to (for tables and results)."""

    def config_label(self) -> str:
        """Returns a one-line description of the strategy configuration, for tables."""


class CassetteProblem(Exception):
    """A cassette that cannot be replayed for its probe; the message says why.

    ``unreadable`` (the default) marks bad input: the file is not a recording of this probe (exit 2).
    False marks an answer the server gave that the SDK refuses (a finding about the server, exit 1).
    """

    def __init__(self, message: str, unreadable: bool = True) -> None:
        super().__init__(message)
        self.unreadable = unreadable


@dataclass(frozen=True)
class Judged:
    """A replayed cassette judged against its probe: the verdict found, how it differs from the
    prediction (empty: as predicted) and the details every result line about it carries."""

    verdict: str
    differences: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Watch:
    """What the guard (``conformance.guard``) reads of a judge's traffic: the API ``paths`` whose calls
    the judge reads (an ending of the URL's path, e.g. ``/messages``); and, of the calls to the
    ``plain`` ones, which pass without being parsed: a request that names none of ``words`` (a
    conversation's resent bytes scanned once) and whose answer is no rejection and names none of
    ``reported``. ``tail_word``, found in a request's last bytes (where the SDKs write it), makes the
    request worth parsing with no scan. ``unread``: paths of the API the guard cannot read (it
    says so once). ``ends``: the events that end a response stream, as its bytes name them (a
    caller that stops reading after one has read it all). ``items``: paths whose items the judge
    reads too, one segment further (``/responses`` for ``GET /responses/{id}``)."""

    paths: tuple[str, ...]
    plain: tuple[str, ...] = ()
    words: tuple[bytes, ...] = ()
    reported: tuple[bytes, ...] = ()
    tail_word: bytes = b""
    unread: tuple[str, ...] = ()
    ends: tuple[bytes, ...] = ()
    items: tuple[str, ...] = ()


class Judge(Protocol):
    """What ``analyze`` needs of a provider's judge (``analyze.registry``). A judge the guard reads
    traffic for also has ``watch`` (a ``Watch``)."""

    provider: str

    def claims(self, interaction: Interaction) -> bool:
        """Returns whether the interaction is this provider's traffic."""

    def judge(self, interaction: Interaction, earlier: Earlier | Sequence[Interaction]) -> Judgement:
        """Returns the verdict on one interaction (``not-judged`` without context management);
        ``earlier`` is the index of the interactions before it in the same recording (or those
        interactions). A judge may also have ``remember(interaction, earlier)``, which notes in the
        index what a later interaction may follow back to this one."""


class OwnModules:
    """The readings ``conformance explain`` and ``conformance drift`` ask a provider for, answered by
    its package's own modules: ``explain.probe_lines`` and ``explain.recording_lines``, and
    ``drift.drift_facts`` (see ``Provider``). A provider class whose package has them inherits the
    three methods from here; each module is imported when first asked."""

    def _own(self, module: str) -> Any:
        """Returns the module ``module`` of the package this provider's class is defined in."""
        import importlib

        return importlib.import_module(f"{type(self).__module__.rpartition('.')[0]}.{module}")

    def explain_lines(self, probe: Any) -> list[str]:
        """Returns the lines ``conformance explain`` shows of ``probe`` (``explain.probe_lines``)."""
        return list(self._own("explain").probe_lines(probe))

    def recording_lines(self, result: CheckResult) -> list[str]:
        """Returns the lines ``conformance explain`` shows under one recording (``explain.recording_lines``)."""
        return list(self._own("explain").recording_lines(result))

    def drift_facts(self, details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
        """Returns what ``conformance drift`` compares of one judged recording (``drift.drift_facts``)."""
        return dict(self._own("drift").drift_facts(details, probe))


@runtime_checkable
class Provider(Protocol):
    """One provider's server-side context management, as every command of the suite needs it.

    ``implicit`` marks the provider of probe files and results that name none (one provider only);
    ``request_headers`` are the request headers a cassette keeps besides content type and accept
    (those that select the API's version and features; never a credential); ``scrub_markers`` are
    byte strings one of which a body holds whenever ``scrub`` would change it. Optionally, for
    ``conformance explain FILE``: ``item_label(item)``, the one-line summary of a history item of
    this provider's own shape (None for any other), and ``item_secrets(item)``, the reasoning text
    such an item carries (for the redactor).
    """

    name: str
    title: str
    key_variable: str
    base_url_variable: str
    implicit: bool
    request_headers: frozenset[str]
    scrub_markers: tuple[bytes, ...]

    def probe_schema(self) -> dict[str, Any]:
        """Returns the JSON Schema a probe file of this provider is validated against first."""

    def build_probe(self, raw: dict[str, Any], path: Path, where: tuple[Any, ...], locator: Locator) -> ProviderProbe:
        """Returns the probe of one schema-valid entry; raises a located ``SpecError`` when it
        contradicts the documented semantics."""

    def probe_details(self, probe: Any) -> dict[str, Any]:
        """Returns the details every result line about ``probe`` starts with (its configuration and
        task in flight), in the order they are written."""

    def live_label(self, details: dict[str, Any]) -> str:
        """Returns how a problem line names the task in flight of a result's ``details``."""

    def judge_cassette(self, probe: Any, path: Path, data: dict[str, Any]) -> Judged:
        """Returns the replayed cassette judged against ``probe``, offline; raises ``CassetteProblem``."""

    def record(self, probes: Sequence[Any], key: str, base_url: str | None, out: Path) -> list[Recorded]:
        """Records ``probes`` through the provider's SDK into cassettes under ``out``; returns one
        outcome per probe tried (the last one ``unavailable`` when the run stopped)."""

    def dry_run(self, probes: Sequence[Any], key: str, base_url: str | None) -> list[str]:
        """Returns the lines of ``record --dry-run``: each probe's requests, tokens and cost."""

    def offline_cost(self, probes: Sequence[Any]) -> float | None:
        """Returns the offline dollar estimate of recording ``probes``, None when a model has no price."""

    def claims_config(self, path: Path) -> bool:
        """Returns whether the ``lint-config`` file at ``path`` is this provider's configuration."""

    def lint_config(self, path: Path, max_task_steps: int | None, as_json: str | bool | None) -> int:
        """Prints the lint of the configuration at ``path``; returns 0, 1 when it reaches a task in
        flight, 2 for a configuration that cannot be read or that the API rejects."""

    def judge(self) -> Judge:
        """Returns the analyzer's judge of this provider's recorded traffic."""

    def scrub(self, value: dict[str, Any]) -> None:
        """Replaces, in place, the reasoning text and ciphertext one JSON object of this provider's
        bodies or stream events carries (the core walks the nesting)."""

    def reasoning_leaks(self, value: dict[str, Any], where: str) -> list[str]:
        """Returns one ``audit`` line per piece of this provider's reasoning left unscrubbed in one
        JSON object (the core walks the nesting)."""

    def explain_lines(self, probe: Any) -> list[str]:
        """Returns the lines ``conformance explain`` shows of ``probe`` between its description and
        its recordings: configuration, request, history with the live span marked, prediction."""

    def recording_lines(self, result: CheckResult) -> list[str]:
        """Returns the lines ``conformance explain`` shows under one recording of a probe (``result``
        of ``verify.check_cassette``): its verdict against the prediction, or why it was not judged."""

    def drift_facts(self, details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
        """Returns what ``conformance drift`` compares of one judged recording beyond its verdict,
        read from the result's ``details``: ``live`` (what of the task in flight was reached),
        ``reason`` (the rejection's ``{status, type, code, message}``, numbers masked, or None) and
        ``binding`` (what a prefix check of replayed reasoning did, in words, or None)."""


def entries() -> tuple[registry.Entry, ...]:
    """Returns the registered providers' entries, shipped ones first (nothing is imported)."""
    return registry.entries(KIND)


def names() -> list[str]:
    """Returns the registered providers' names, shipped ones first (nothing is imported)."""
    return registry.names(KIND)


_CHECKED: dict[str, object] = {}  # name -> the object that passed the check (a Protocol isinstance is slow)


def get(name: str) -> Provider:
    """Returns the provider registered as ``name``; raises ``registry.RegistryError`` for an unknown
    name or an object that does not meet ``Provider``."""
    found = registry.load(KIND, name)
    if _CHECKED.get(name) is found:
        return found  # type: ignore[return-value]  # checked against the Protocol when first registered
    if not isinstance(found, Provider) or found.name != name:
        raise registry.RegistryError(f"the provider entry {name!r} is not a Provider named {name!r} "
                                     f"(see conformance.provider.base)")
    _CHECKED[name] = found
    return found


def all_providers() -> list[Provider]:
    """Returns every registered provider, shipped ones first."""
    return [get(name) for name in names()]


def implicit() -> Provider:
    """Returns the provider of probe files and results that name none."""
    return next(p for p in all_providers() if p.implicit)


def of(name: str | None) -> Provider:
    """Returns the provider called ``name``, the implicit one for None."""
    return implicit() if name is None else get(name)
