"""Tiny scenario files written inside tests."""

from __future__ import annotations

from pathlib import Path

GOOD = """\
format_version: 1
scenarios:
  - id: tiny.inflight
    description: one settled task then a one-step task in flight
    family: tiny
    params: {keep_turns: 4}
    history:
      - {role: user, content: "first"}
      - role: assistant
        content:
          - {type: thinking, thinking: "plan", signature: "s1"}
          - {type: text, text: "first done"}
      - {role: user, content: "second"}
      - role: assistant
        content:
          - {type: thinking, thinking: "plan 2", signature: "s2"}
          - {type: tool_use, id: toolu_01, name: ls, input: {}}
      - role: user
        content:
          - {type: tool_result, tool_use_id: toolu_01, content: "a b"}
    truth: {live_start: 2}
    expect:
      reference:
        output:
          - {role: user, content: "first"}
          - {role: assistant, content: [{type: text, text: "first done"}]}
          - {role: user, content: "second"}
          - role: assistant
            content:
              - {type: thinking, thinking: "plan 2", signature: "s2"}
              - {type: tool_use, id: toolu_01, name: ls, input: {}}
          - role: user
            content:
              - {type: tool_result, tool_use_id: toolu_01, content: "a b"}
  - id: tiny.settled
    description: a history that ends settled
    family: tiny
    history:
      - {role: user, content: "hi"}
      - {role: assistant, content: "hello"}
    truth: {live_start: 2}
"""


def write(folder: Path, name: str, text: str) -> Path:
    """Writes ``text`` to ``folder/name`` and returns the path."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
