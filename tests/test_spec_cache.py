"""The cache of validated spec files: a hit reads what a fresh load reads, anything that changes the
result is a new key, and a cache that cannot be used costs only time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.engine import spec_cache
from conformance.engine.invariant_entries import INVARIANT_IDS
from conformance.engine.spec import load, load_file

from ._specs import GOOD


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(spec_cache.ENVIRONMENT, str(folder))
    return folder


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_second_load_reads_the_cache_and_equals_a_fresh_load(tmp_path: Path, cache_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "tiny.yaml", GOOD)
    first = load_file(path)
    assert first.scenarios and not first.errors
    assert len(list(cache_dir.glob("*.marshal"))) == 1
    import conformance.engine.spec as spec

    def no_parse(*args: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(spec, "parse_fast", no_parse)
    again = load_file(path)
    assert again == first
    monkeypatch.setenv(spec_cache.ENVIRONMENT, "off")
    with pytest.raises(AssertionError, match="parsed again"):
        load_file(path)


@pytest.mark.slow
def test_the_shipped_specs_from_the_cache_equal_them_read_afresh(shipped: object, cache_dir: Path) -> None:
    from .conftest import SPECS

    assert load([SPECS]) == load([SPECS]) == shipped  # the second read comes from the cache


def test_a_changed_file_or_invariant_list_is_a_new_key(tmp_path: Path, cache_dir: Path) -> None:
    path = _write(tmp_path, "tiny.yaml", GOOD)
    load_file(path)
    changed = GOOD.replace("one settled task", "one finished task")
    path.write_text(changed, encoding="utf-8")
    assert load_file(path).scenarios[0].description.startswith("one finished task")
    assert spec_cache.key(GOOD, "yaml", INVARIANT_IDS) != spec_cache.key(changed, "yaml", INVARIANT_IDS)
    assert spec_cache.key(GOOD, "yaml", INVARIANT_IDS) != spec_cache.key(GOOD, "json", INVARIANT_IDS)
    assert spec_cache.key(GOOD, "yaml", INVARIANT_IDS) != spec_cache.key(GOOD, "yaml", sorted(INVARIANT_IDS)[1:])


def test_a_file_with_a_problem_is_never_stored_and_its_error_comes_back(tmp_path: Path, cache_dir: Path) -> None:
    bad = _write(tmp_path, "bad.yaml", GOOD.replace("live_start: 2", "live_start: 99"))
    for _ in range(2):
        errors = load_file(bad).errors
        assert errors and all("live_start" in e.field and e.line for e in errors)
    assert not list(cache_dir.glob("*.marshal"))


def test_a_corrupt_or_foreign_cache_file_is_ignored(tmp_path: Path, cache_dir: Path) -> None:
    path = _write(tmp_path, "tiny.yaml", GOOD)
    fresh = load_file(path)
    (stored,) = cache_dir.glob("*.marshal")
    stored.write_bytes(b"\x00not marshal")
    assert load_file(path) == fresh
    import marshal

    stored.write_bytes(marshal.dumps(("another key", [], [])))
    assert load_file(path) == fresh
    assert spec_cache.get(stored.stem) is not None  # the good answer was stored again


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into any folder")
def test_a_cache_folder_that_cannot_be_written_costs_only_time(tmp_path: Path, cache_dir: Path) -> None:
    cache_dir.mkdir()
    cache_dir.chmod(0o500)
    try:
        assert load_file(_write(tmp_path, "tiny.yaml", GOOD)).scenarios
    finally:
        cache_dir.chmod(0o700)


def test_a_cache_path_that_is_a_file_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = _write(tmp_path, "not-a-folder", "x")
    monkeypatch.setenv(spec_cache.ENVIRONMENT, str(blocker / "cache"))
    assert load_file(_write(tmp_path, "tiny.yaml", GOOD)).scenarios
    assert spec_cache.put("k", [], []) is False


def test_only_plain_data_is_stored(tmp_path: Path, cache_dir: Path) -> None:
    import datetime

    assert spec_cache.is_plain([{"a": [1, 2.5, True, None, "x"]}])
    assert not spec_cache.is_plain([{"when": datetime.date(2026, 1, 1)}])
    assert not spec_cache.is_plain([{"pair": (1, 2)}])
    assert spec_cache.put("dated", [{"when": datetime.date(2026, 1, 1)}], [1]) is False
    assert spec_cache.get("dated") is None


def test_with_no_home_folder_there_is_no_cache_and_the_specs_still_load(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(spec_cache.ENVIRONMENT, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert spec_cache.folder() is None
    assert load_file(_write(tmp_path, "tiny.yaml", GOOD)).scenarios


def test_the_test_suite_keeps_its_spec_cache_in_the_checkout() -> None:
    # set by tests/conftest.py before anything is loaded, so nothing goes to the user's cache folder
    folder = spec_cache.folder()
    assert folder is not None and Path(__file__).resolve().parents[1] / ".conformance_cache" in folder.parents
