"""``usage.iterations`` read as the SDK documents it (2.14): a ``compaction`` entry is the cost of the
summarising call, "NOT the size of the context that was compacted away", and can be far smaller
than that context; the last ``message`` entry is the prompt the answer was computed from. The
evidence says so, and a small compaction entry never makes a compaction look as if it fired below
its trigger.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.provider.analyze import analyze_file
from conformance.provider.anthropic.judge import iterations_said

from .test_analyze import call, final, message, one, request, result, user

REAL = Path(__file__).resolve().parent / "real"
COMPACT = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}
SUMMARY = {"type": "compaction", "content": "Task A: the log was read, the fix applied."}
COST = "(the summarising call's own usage, not the size of the context it folded away)"


def test_the_evidence_says_a_compaction_entry_is_the_cost_of_the_summarising_call() -> None:
    said = iterations_said([{"type": "compaction", "input_tokens": 2000, "cache_read_input_tokens": 1000}],
                           [{"type": "message", "input_tokens": 300}, {"type": "message", "input_tokens": 800}])
    assert said == f"usage.iterations: the compaction pass cost 3000 input tokens {COST}, then the answer was " \
                   "computed from 800"
    assert iterations_said([{"type": "compaction", "input_tokens": 5}], []).endswith(f"cost 5 input tokens {COST}")


def test_a_real_response_is_worded_so() -> None:
    (found,) = analyze_file(REAL / "response-only" / "ruby_llm_compaction_response.json").judgements
    assert f"the compaction pass cost 99195 input tokens {COST}, then the answer was computed from 162" \
           in found.evidence[1]
    assert not any("compaction over" in line for line in found.evidence)


# A settled task whose tool result alone is about 60,000 tokens, past the 50,000 trigger, then the
# request of the next task: the summary of the whole request folds that request (reached), and the
# compaction pass's own tokens say nothing of whether the trigger was reached.
LARGE = [user("task A"), call("a1"), result("a1", 60000), final(), user("task B")]
SMALL = [user("task A"), call("a1"), result("a1", 1000), final(), user("task B")]


@pytest.mark.slow
def test_a_small_compaction_entry_after_a_large_request_is_not_below_the_trigger(tmp_path: Path) -> None:
    found = one(tmp_path, request(LARGE, COMPACT),
                message(SUMMARY, iterations=[{"type": "compaction", "input_tokens": 3000}]))
    assert found.verdict == "reached-live-task", found.evidence
    assert f"the compaction pass cost 3000 input tokens {COST}" in found.evidence[0]
    assert not any("below the trigger" in line for line in found.evidence)


def test_a_request_below_the_trigger_says_why_the_entry_does_not_count(tmp_path: Path) -> None:
    found = one(tmp_path, request(SMALL, COMPACT),
                message(SUMMARY, iterations=[{"type": "compaction", "input_tokens": 3000}]))
    assert found.verdict == "reached-live-task"  # (the summary folds task B's request, and the report does not add up)
    [problem] = [line for line in found.evidence if "below the trigger" in line]
    assert problem.startswith("compacted a request of about ") and "below the trigger 50000" in problem
    assert "they are the cost of the summarising call" in problem


def test_a_pass_that_read_the_triggers_worth_shows_it_was_reached(tmp_path: Path) -> None:
    # as in a recording whose request text was trimmed after it was made: the pass still read 55,000
    found = one(tmp_path, request(SMALL, COMPACT),
                message(SUMMARY, iterations=[{"type": "compaction", "input_tokens": 55000}]))
    assert found.verdict == "reached-live-task", found.evidence
