"""Deterministic, realistic payloads for scenario files: logs, source files, test runs, CSV and JSON
tool output of a chosen size, and real PNG and PDF files as base64.

Every function takes a seed and returns the same bytes for it on every run and Python version
(``random.Random`` seeded with a string is stable), so the scenario files they feed are reproducible.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib

_MODULES = ["loader", "transform", "scheduler", "db.pool", "http.client", "cache", "auth", "billing"]
_WORDS = ("batch rows retry upstream timeout commit shard offset cursor window merge flush checkpoint "
          "schema column partition replica lease token quota backlog").split()


def log_text(seed: str, size: int) -> str:
    """Returns service log lines (timestamps, levels, modules, key=value fields) of at least ``size``
    characters, with a few warnings and one error burst."""
    rng = random.Random("log:" + seed)
    lines: list[str] = []
    second = 0
    batch = 300
    while sum(len(line) + 1 for line in lines) < size:
        second += rng.randint(0, 3)
        batch += 1
        level = rng.choices(["INFO ", "DEBUG", "WARN ", "ERROR"], [70, 20, 8, 2])[0]
        module = rng.choice(_MODULES)
        stamp = f"2026-11-29T02:{(second // 60) % 60:02d}:{second % 60:02d}.{rng.randint(0, 999):03d}Z"
        fields = " ".join(f"{w}={rng.randint(1, 9999)}" for w in rng.sample(_WORDS, 3))
        lines.append(f"{stamp} {level} etl.{module:<12} batch={batch} {fields} dur_ms={rng.randint(3, 2400)}")
        if level == "ERROR":
            lines.append(f"    psycopg.errors.SerializationFailure: could not serialize access due to "
                         f"concurrent update (batch={batch})")
    return "\n".join(lines) + "\n"


def source_text(seed: str, size: int) -> str:
    """Returns a Python module (docstring, imports, functions with bodies) of at least ``size``
    characters."""
    rng = random.Random("src:" + seed)
    parts = ['"""Loads extracted batches into the warehouse, one transaction per batch."""', "",
             "from __future__ import annotations", "", "import logging", "import time",
             "from collections.abc import Iterable, Iterator", "", "log = logging.getLogger(__name__)", ""]
    n = 0
    while sum(len(p) + 1 for p in parts) < size:
        n += 1
        name = f"{rng.choice(['load', 'flush', 'merge', 'retry', 'plan', 'check'])}_{rng.choice(_WORDS)}_{n}"
        arg = rng.choice(_WORDS)
        parts += ["", f"def {name}({arg}s: Iterable[dict], limit: int = {rng.randint(10, 5000)}) -> int:",
                  f'    """Returns how many {arg}s were written; raises RuntimeError after {rng.randint(2, 6)} '
                  'failed attempts."""',
                  "    written = 0",
                  f"    for attempt, {arg} in enumerate({arg}s):",
                  "        if attempt >= limit:",
                  "            break",
                  f"        if not {arg}.get({rng.choice(_WORDS)!r}):",
                  f"            log.warning(\"skipping %s: no {rng.choice(_WORDS)}\", {arg}.get('id'))",
                  "            continue",
                  f"        time.sleep({rng.randint(1, 9) / 100})",
                  "        written += 1",
                  "    return written"]
    return "\n".join(parts)


def pytest_text(seed: str, size: int) -> str:
    """Returns verbose pytest output (PASSED lines, one failure with its traceback, a summary) of at
    least ``size`` characters."""
    rng = random.Random("pytest:" + seed)
    head = ["============================= test session starts ==============================",
            "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0 -- /srv/app/.venv/bin/python",
            "rootdir: /srv/app", "configfile: pyproject.toml", "collected 1184 items", ""]
    body: list[str] = []
    n = 0
    while sum(len(line) + 1 for line in head + body) < size - 1500:
        n += 1
        module = rng.choice(["test_loader", "test_transform", "test_api", "test_billing", "test_cache"])
        body.append(f"tests/{module}.py::test_{rng.choice(_WORDS)}_{rng.choice(_WORDS)}_{n} PASSED "
                    f"[{min(99, n * 100 // 1184):3d}%]")
    tail = ["", "=================================== FAILURES ===================================",
            "__________________________ test_flush_checkpoint_857 ___________________________", "",
            "    def test_flush_checkpoint_857(pool):", "        batch = make_batch(rows=5000)",
            ">       assert flush(batch, pool) == 5000", "E       assert 4999 == 5000",
            "E        +  where 4999 = flush([{'id': 1, ...}], <Pool size=4>)", "",
            "tests/test_loader.py:212: AssertionError",
            "=========================== short test summary info ============================",
            "FAILED tests/test_loader.py::test_flush_checkpoint_857 - assert 4999 == 5000",
            f"================= 1 failed, {n} passed, 3 skipped in 48.31s =================="]
    return "\n".join(head + body + tail) + "\n"


def traceback_text(seed: str, size: int) -> str:
    """Returns a Python traceback with chained exceptions, of at least ``size`` characters."""
    rng = random.Random("tb:" + seed)
    lines = ["Traceback (most recent call last):"]
    while sum(len(line) + 1 for line in lines) < size - 200:
        module = rng.choice(_MODULES).replace(".", "/")
        lines += [f'  File "/srv/app/src/etl/{module}.py", line {rng.randint(10, 900)}, in '
                  f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}",
                  f"    result = {rng.choice(_WORDS)}.{rng.choice(_WORDS)}({rng.choice(_WORDS)}, "
                  f"timeout={rng.randint(1, 60)})"]
    lines += ["psycopg.OperationalError: connection to server at \"10.4.2.17\", port 5432 failed: "
              "FATAL:  remaining connection slots are reserved for non-replication superuser connections",
              "", "The above exception was the direct cause of the following exception:", "",
              "RuntimeError: load_batch gave up after 5 attempts (batch=381)"]
    return "\n".join(lines)


def csv_text(seed: str, size: int) -> str:
    """Returns a CSV table (header and rows of ids, dates, amounts, statuses) of at least ``size``
    characters."""
    rng = random.Random("csv:" + seed)
    rows = ["invoice_id,customer,issued_on,amount_eur,status,region"]
    n = 0
    while sum(len(r) + 1 for r in rows) < size:
        n += 1
        rows.append(f"INV-{20260000 + n},C{rng.randint(1000, 9999)},2026-{rng.randint(1, 11):02d}-"
                    f"{rng.randint(1, 28):02d},{rng.randint(10, 90000) / 100:.2f},"
                    f"{rng.choice(['paid', 'open', 'overdue', 'void'])},{rng.choice(['eu-west', 'eu-north', 'us-east'])}")
    return "\n".join(rows) + "\n"


def json_text(seed: str, size: int) -> str:
    """Returns a pretty-printed JSON API response (a page of records) of at least ``size`` characters."""
    rng = random.Random("json:" + seed)
    records: list[dict[str, object]] = []
    while len(json.dumps({"data": records}, indent=2)) < size:
        records.append({"id": f"job_{rng.randint(10**7, 10**8 - 1)}", "state": rng.choice(["done", "failed", "queued"]),
                        "attempts": rng.randint(0, 5), "duration_s": rng.randint(0, 9000) / 10,
                        "labels": rng.sample(_WORDS, 2), "error": None if rng.random() < 0.8 else "timeout"})
    return json.dumps({"data": records, "next_cursor": f"c_{rng.randint(10**9, 10**10)}", "has_more": True},
                      indent=2)


def png_base64(seed: str, width: int = 48, height: int = 32) -> str:
    """Returns a real RGB PNG (a noisy gradient, so it does not compress to nothing) as base64."""
    rng = random.Random("png:" + seed)
    raw = bytearray()
    for y in range(height):
        raw.append(0)  # filter type: none
        for x in range(width):
            raw += bytes(((x * 5 + rng.randint(0, 40)) % 256, (y * 7 + rng.randint(0, 40)) % 256,
                          (x * y + rng.randint(0, 40)) % 256))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode("ascii")


def pdf_base64(title: str, lines: list[str]) -> str:
    """Returns a real one-page PDF showing ``title`` and ``lines`` in Helvetica, as base64."""
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    text = ["BT /F1 16 Tf 56 780 Td (" + escape(title) + ") Tj ET"]
    text += [f"BT /F1 10 Tf 56 {750 - 14 * k} Td ({escape(line)}) Tj ET" for k, line in enumerate(lines)]
    stream = "\n".join(text).encode("latin-1", "replace")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return base64.b64encode(bytes(out)).decode("ascii")
