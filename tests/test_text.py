"""Generated text speaks English: one helper for articles, one for plurals, used everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance._text import a_type, article, plural

PACKAGE = Path(__file__).resolve().parents[1] / "conformance"


@pytest.mark.parametrize(("word", "said"), [("int", "an int"), ("str", "a str"), ("assistant", "an assistant"),
                                            ("user", "a user"), ("object", "an object"), ("NoneType", "a NoneType"),
                                            ("system", "a system"), ("ellipsis", "an ellipsis"), ("uuid", "a uuid"),
                                            ("8-step task", "an 8-step task"), ("12-step task", "a 12-step task"),
                                            ("11-message history", "an 11-message history"),
                                            ("18000-token window", "an 18000-token window"),
                                            ("110-step task", "a 110-step task"), ("80 s", "an 80 s"),
                                            ("1-step task", "a 1-step task")])
def test_article(word: str, said: str) -> None:
    assert article(word) == said


def test_a_type_and_plural() -> None:
    assert a_type(3) == "an int" and a_type([]) == "a list" and a_type(None) == "a NoneType"
    assert plural(1, "message") == "1 message" and plural(0, "step") == "0 steps"
    assert plural(2, "match", "matches") == "2 matches"


# an article or plural written by hand beside a name or a count only known at run time
_HAND_MADE = [re.compile(r"\ban? \{type\("), re.compile(r"""\{['"]{2} if [^}]*[!=]= 1 else ['"]s['"]\}"""),
              re.compile(r"\ba \{(role|kind)\}"), re.compile(r"\ban? \{[^}]*\}-[a-z]")]  # "a {n}-step task"
_PARENTHESISED = re.compile(r"\} [a-z ]*[a-z]\(s\)")  # "{n} check(s)"


@pytest.mark.slow
def test_generated_text_uses_the_helpers() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            patterns = _HAND_MADE + ([] if "provider" in path.parts else [_PARENTHESISED])
            if any(p.search(line) for p in patterns):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}")
    assert not offenders, "use conformance._text.article / a_type / plural:\n" + "\n".join(offenders)
