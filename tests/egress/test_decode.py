"""The payload search: every encoding the issue names, fragments, and no false find."""

from __future__ import annotations

import base64
import gzip
import html
import json
import random
import zlib
from urllib.parse import quote_plus

import pytest

from conformance.egress.canaries import FRAGMENT, Canary, find
from conformance.egress.decode import texts

THOUGHT = Canary("t", "reasoning-text", "Ada Quill at 41 Larch Row is \"probably\" lying & owes 7731 <EUR>.")


@pytest.mark.parametrize("wrap", [
    lambda t: t,
    lambda t: {"a": [{"b": t}]},
    lambda t: json.dumps({"x": json.dumps({"y": t})}),
    lambda t: base64.b64encode(t.encode()).decode(),
    lambda t: "prefix " + base64.urlsafe_b64encode(gzip.compress(t.encode())).decode() + " suffix",
    lambda t: zlib.compress(t.encode()),
    lambda t: "q=" + quote_plus(t),
    lambda t: "<p>" + html.escape(t) + "</p>",
    lambda t: json.dumps(t, ensure_ascii=True).replace('"', '\\"'),
    lambda t: [{"delta": {"text": t[i:i + 7]}} for i in range(0, len(t), 7)],
    lambda t: "".join(f"data: {json.dumps({'d': t[i:i + 7]})}\n\n" for i in range(0, len(t), 7)),
    lambda t: iter([t]),
    lambda t: t[:40],
    lambda t: "xx" + t[17:17 + FRAGMENT] + "yy",
    lambda t: base64.b85encode(t.encode()).decode(),
    lambda t: "INFO thought=" + base64.b85encode(t.encode()).decode() + " done",
    lambda t: {"blob": base64.b85encode(gzip.compress(t.encode())).decode()},
    lambda t: base64.a85encode(t.encode()).decode(),
    lambda t: "INFO thought=" + base64.a85encode(t.encode(), adobe=True).decode(),
    lambda t: base64.b85encode(t[:40].encode()),
    lambda t: {"log": "reasoning_blob=" + base64.b85encode(t.encode()).decode()},
    lambda t: {"log": "conversation=" + base64.a85encode(t.encode()).decode()},
    lambda t: {"log": "reasoning_payload_base85=" + base64.a85encode(t.encode()).decode()},
], ids=["plain", "nested", "json-in-json", "base64", "gzip-base64url", "zlib", "url", "html", "escaped-json",
        "split-events", "sse-text", "iterator", "first-40", "fragment", "base85", "base85-glued", "gzip-base85",
        "ascii85", "ascii85-adobe-glued", "base85-first-40-bytes", "base85-after-a-long-word",
        "ascii85-after-a-word", "ascii85-after-a-long-word"])
def test_a_thought_is_found_however_it_is_encoded(wrap) -> None:
    payload = wrap(THOUGHT.value)
    if hasattr(payload, "__next__"):
        payload = list(payload)
    assert find(payload, [THOUGHT]), payload


def test_a_piece_shorter_than_a_fragment_is_no_find() -> None:
    assert not find({"a": THOUGHT.value[:FRAGMENT - 1]}, [THOUGHT])


def test_objects_are_read_through_their_dump_methods() -> None:
    class Holder:
        def __init__(self) -> None:
            self.inner = {"t": THOUGHT.value}

    found = find(Holder(), [THOUGHT])
    assert found and found[0].whole


def test_a_finding_never_holds_the_text() -> None:
    finding = find({"a": THOUGHT.value}, [THOUGHT])[0]
    assert THOUGHT.value[:FRAGMENT] not in finding.describe()
    assert finding.digest in finding.describe()


def test_a_finding_names_the_innermost_place_not_the_string_that_holds_it() -> None:
    payload = json.dumps([{"role": "user", "content": "hi"},
                          {"role": "assistant", "content": [{"type": "thinking", "thinking": THOUGHT.value}]}])
    assert find(payload, [THOUGHT])[0].where == "$>json[1].content[0].thinking"
    assert find({"log": json.dumps({"x": THOUGHT.value})}, [THOUGHT])[0].where == "$.log>json.x"
    plain_text = find(THOUGHT.value, [THOUGHT])[0]
    assert plain_text.where == "$" and plain_text.describe().endswith("found whole at $ (the payload itself)")


def test_ordinary_text_and_other_encodings_decode_to_no_base85_text() -> None:
    """A run of words, identifiers, compact JSON, base64 or hex read as base85 or Ascii85 is noise:
    none of it is kept as a decoded text (so it costs no further reading)."""
    rng = random.Random(7)
    words = ["alpha", "beta", "x=1;y=2", "id:abc123", "https://e.com/a?b=c&d=e", "(ok)", "<tag>", "a_b-c"]
    payload = {
        "prose": " ".join(rng.choice(words) for _ in range(2000)),
        "glued": "".join(rng.choice(words) for _ in range(2000)),
        "json": json.dumps([{f"k{i}": f"value-{i}!"} for i in range(500)], separators=(",", ":")),
        "base64": [base64.b64encode(rng.randbytes(60)).decode() for _ in range(300)],
        "hex": rng.randbytes(400).hex(),
        "noise": "".join(rng.choice("!#$%&()*+-;<=>?@^_`{|}~ABCabc012") for _ in range(5000)),
    }
    assert not [where for where, _ in texts(payload) if ">base85" in where or ">ascii85" in where]
    assert not find(payload, [THOUGHT])
