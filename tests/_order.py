"""The order tests run in: the known long ones first (pytest-xdist hands tests out in the order
collected, so a long test collected last would end the run alone on one worker)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

# "file::test" of the tests that take the longest (every parameter of one), longest first;
# ``python -m pytest -q -n 2 tests/test_*.py --durations=30`` shows them
LONG = (
    "tests/provider/test_analyze_report.py::test_the_report_of_three_times_the_interactions_takes_no_more_memory",
    "tests/fuzz/test_fuzz.py::test_pytest_plugin_fuzzes_a_target_in_its_format",
    "tests/fuzz/test_fuzz.py::test_kill_rate_of_fuzzing_alone_on_the_zoo",
    "tests/test_plugin.py::test_after_a_plain_install_the_route_runs_in_the_checkout_and_a_node_id_pastes_back",
    "tests/test_startup.py::test_the_default_run_imports_no_sdk_in_its_own_process",
    "tests/worker/test_worker.py::test_no_process_a_command_started_outlives_it",
    "tests/worker/test_worker.py::test_parallel_results_and_reports_equal_the_serial_run",
    "tests/matrix/test_matrix.py::test_every_failing_cell_fails_on_its_smallest_scenario",
    "tests/fuzz/test_fuzz.py::test_fuzz_in_a_format_catches_a_compactor_written_in_it_and_reproduces",
    "tests/formats/test_formats_twins.py::test_a_broken_compactor_in_a_format_fails_as_its_anthropic_twin",
    "tests/test_startup.py::test_the_anthropic_side_imports_no_openai_sdk",
    "tests/test_third_party.py::test_lint_config_and_dry_run_go_to_the_provider_that_claims_them",
    "tests/test_cli.py::test_known_gaps_and_keywords_reach_provider_probes",
    "tests/test_cli.py::test_the_report_fits_100_columns",
)

Item = TypeVar("Item")


def _rank(nodeid: str) -> int:
    """Returns the place of the test ``nodeid`` in ``LONG`` (any parameter of it), or ``len(LONG)``."""
    name = nodeid.split("[", 1)[0]
    try:
        return LONG.index(name)
    except ValueError:
        return len(LONG)


def long_first(items: Sequence[Item]) -> list[Item]:
    """Returns ``items`` (pytest items, with a ``nodeid``) with the files holding a test of ``LONG``
    first, in the order of their first such test, each beginning with its long tests; every file's
    tests stay together (a module's fixtures are then built once per worker), the rest in order."""
    ranks = [_rank(getattr(item, "nodeid", "")) for item in items]
    files: dict[str, int] = {}
    for item, rank in zip(items, ranks, strict=True):
        name = _file(item)
        files[name] = min(rank, files.get(name, rank))
    order = {name: n for n, name in enumerate(files)}
    keyed = sorted(range(len(items)), key=lambda n: (files[_file(items[n])], order[_file(items[n])], ranks[n]))
    return [items[n] for n in keyed]


def _file(item: object) -> str:
    """Returns the file part of the item's node id."""
    return str(getattr(item, "nodeid", "")).split("::", 1)[0]
