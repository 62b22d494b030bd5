"""``semantics.fingerprint`` writes a message's texts as ``json.dumps`` would, without its set-up:
the same string for any texts (escapes, non-ASCII, lone surrogates), so matches do not move."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.provider.openai import semantics as sem

TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=12)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.lists(TEXT, max_size=4))
def test_texts_are_written_as_json_dumps_writes_them(texts: list[str]) -> None:
    assert sem._json_texts(texts) == json.dumps(texts)


def test_a_message_fingerprint_keeps_its_form() -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": 'a "b"\n\ud800é'}, "x"]}
    assert sem.fingerprint(item) == ("message", "user", json.dumps(['a "b"\n\ud800é']))
    assert sem.fingerprint({"type": "message", "role": "assistant", "content": "hi"}) == ("message", "assistant", '["hi"]')
