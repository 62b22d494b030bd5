"""``analyze --engine dask`` on Dask's local cluster (worker processes on 127.0.0.1) gives the records
and the exit code of a local run."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

# imported by the tests that need it, not at collection: every pytest-xdist worker collects this file
pytestmark = pytest.mark.skipif(find_spec("distributed") is None, reason="distributed is not installed")

from conformance.cli import main
from conformance.provider.analyze.engines.dask import dask_events, expand
from conformance.provider.analyze.run import FileEnd, analyze_stream

from .test_analyze_stream import log

REAL = Path(__file__).parent / "real"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")  # (None still starts one on :8787 when bokeh is installed)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _plain(events: Any) -> list[Any]:
    return [(e.path, e.interactions, str(e.error)) if isinstance(e, FileEnd) else e.to_dict() for e in events]


def inputs(tmp_path: Path) -> list[Path]:
    day = log(tmp_path)
    packed = tmp_path / "day2.jsonl.gz"
    packed.write_bytes(gzip.compress(day.read_bytes()))
    cassette = tmp_path / "cassettes"
    shutil.copytree(REAL / "openai", cassette)
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions: 7\n")
    return [day, packed, cassette, broken]


@pytest.mark.slow
def test_the_local_cluster_gives_the_local_records(tmp_path: Path, scheduler: str) -> None:
    paths = inputs(tmp_path)
    local = _plain(analyze_stream(paths, jobs=1))
    remote = _plain(dask_events([str(p) for p in paths], scheduler=scheduler, split=4096))
    assert remote == local
    assert sum(1 for e in local if isinstance(e, dict)) > 100 and any(
        isinstance(e, tuple) and "not a list" in e[2] for e in local)


@pytest.mark.slow
def test_the_cli_on_dask_prints_and_exits_as_a_local_run(tmp_path: Path, scheduler: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in inputs(tmp_path)[:3]]
    local = main(["analyze", *paths, "--json", "-", "--jobs", "1"])
    local_out = capsys.readouterr().out
    remote = main(["analyze", *paths, "--json", "-", "--engine", "dask", "--scheduler", scheduler])
    remote_out = capsys.readouterr().out
    assert (remote, json.loads(remote_out)) == (local, json.loads(local_out)) and local == 1


@pytest.mark.slow
def test_file_urls_and_globs_expand_as_local_paths(tmp_path: Path) -> None:
    paths = inputs(tmp_path)
    assert expand([f"file://{tmp_path}/day*.jsonl*"]) == [str(paths[0]), str(paths[1])]
    with pytest.raises(FileNotFoundError):
        expand([str(tmp_path / "nothing-*.jsonl")])
