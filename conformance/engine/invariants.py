"""The invariant catalog: stable id, level, one-line statement, and a pure check.

A check takes ``(scenario, observation)`` and returns a list of violations (empty when it holds);
each violation is a message whose first line names the message and block concerned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any


from .._text import a_type, article, plural
from . import loop, prefix_check
from . import transcript as tx
from .invariant_entries import ENTRIES, Entry, the_one
from .spec import Expectations, Scenario, Truth
from .target import Observation
from ._memo import of_history, of_object, of_pair, shared_facts
from .redaction import forms_of, secrets_in
from .wellformed import new_malformations

Check = Callable[[Scenario, Observation], list[str]]
CHECKS: dict[str, Check] = {}  # an invariant's id -> its check, bound where the check is defined


def checks(invariant: str) -> Callable[[Check], Check]:
    """Returns a decorator that makes the function it decorates the check of the catalog entry
    ``invariant`` (``invariant_entries.ENTRIES``), and returns it unchanged."""

    def bind(check: Check) -> Check:
        CHECKS[invariant] = check
        return check

    return bind


@dataclass(frozen=True)
class Invariant(Entry):
    """One entry of the catalog (``invariant_entries.Entry``: its id, level, statement and flags)
    with its check function."""

    check: Check = field(kw_only=True)


def _focused_diff(expected: Any, actual: Any, limit: int = 6) -> list[str]:
    """Returns up to ``limit`` readable lines of what changed from ``expected`` to ``actual``;
    reasoning text shows only as its hash and length."""
    from deepdiff import DeepDiff  # only when a target changed its input: a costly import

    lines = DeepDiff(tx.redact_reasoning(expected), tx.redact_reasoning(actual), verbose_level=2).pretty().splitlines()
    return lines[:limit] + ([f"... {len(lines) - limit} more"] if len(lines) > limit else [])


def message_diff(expected: Mapping[str, Any], actual: Any) -> list[str]:
    """Returns lines naming the first block that differs between two messages, with a diff."""
    if not isinstance(actual, Mapping):
        return [f"{a_type(actual)} stands where the message was"]
    if expected.get("role") != actual.get("role"):
        return [f"role {expected.get('role')!r} became {actual.get('role')!r}"]
    want, got = tx.blocks(expected), tx.blocks(actual)
    if isinstance(expected.get("content"), str) != isinstance(actual.get("content"), str):
        return ["content changed between a string and a list of blocks"]
    missing = [(j, b) for _, j, b in _unmatched(((0, j, b, tx.canonical(b)) for j, b in enumerate(want)),
                                                 Counter(tx.canonical(b) for b in got))]
    if len(want) != len(got):
        lines = [f"content[{j}] ({tx.describe_block(b)}) is missing" for j, b in missing[:4]]
        return lines or [f"{len(want)} blocks became {len(got)}"]
    for j, (a, b) in enumerate(zip(want, got)):
        if not tx.same_json(a, b):
            return [f"content[{j}] ({tx.describe_block(a)}) changed:"] + [
                "  " + line for line in _focused_diff(a, b)]
    return _focused_diff(dict(expected), dict(actual)) or [
        f"expected {tx.canonical(tx.redact_reasoning(dict(expected)))[:160]}",
        f"returned {tx.canonical(tx.redact_reasoning(dict(actual)))[:160]}"]


def _output(obs: Observation) -> list[Any]:
    return obs.output if isinstance(obs.output, list) else []


def _input_keys(history: Sequence[Any]) -> frozenset[str]:
    """Returns the canonical JSON of each input message."""
    return frozenset(tx.canonical(m) for m in history)


def _new_malformations(scenario: Scenario, obs: Observation) -> list[tuple[str, str, bool]]:
    """Returns ``new_malformations`` of the scenario's history and the output, computed once for
    the pair (``output.well-formed`` and the readability gate both read it)."""
    return of_pair(_malformations_list, scenario.history, obs.output)


def _malformations_list(history: Sequence[Any], output: Any) -> list[tuple[str, str, bool]]:
    return list(new_malformations(history, output))


# --- the checks --------------------------------------------------------------------------------

def call_problem(obs: Observation, refusal_allowed: bool) -> str:
    """Returns what ``call.completes`` says of a call: that it hung, that it crashed, or that it
    raised where no refusal is allowed; '' when it returned or declined as allowed."""
    if obs.timed_out:
        return f"the call hung: {obs.error}"
    if obs.crashed:
        return f"crashed with {obs.error_type}: {obs.error} (a programming error is never a refusal)"
    if obs.refused and not refusal_allowed:
        return f"raised {obs.error_type}: {obs.error}"
    return ""


@checks("call.completes")
def call_completes(scenario: Scenario, obs: Observation) -> list[str]:
    problem = call_problem(obs, scenario.expect.refusal_allowed)
    return [problem] if problem else []


@checks("output.well-formed")
def output_well_formed(scenario: Scenario, obs: Observation) -> list[str]:
    return [problem if not where else f"output{where} {problem}"
            for where, problem, _ in _new_malformations(scenario, obs)]


def output_unreadable(scenario: Scenario, obs: Observation) -> bool:
    """Returns whether the output is too malformed for the other checks to read: not a list of
    messages whose content is a string or a list of mappings (or not even walkable)."""
    try:
        return any(unreadable for *_, unreadable in _new_malformations(scenario, obs))
    except Exception:  # noqa: BLE001 - e.g. a self-referencing output: nothing else can read it either
        return True


@checks("input.unmutated")
def input_unmutated(scenario: Scenario, obs: Observation) -> list[str]:
    return ["the target changed the history it was given"] if obs.mutated else []


@checks("live.untouched-suffix")
def live_untouched_suffix(scenario: Scenario, obs: Observation) -> list[str]:
    live = scenario.live_span
    out = _output(obs)
    if not live:
        return []
    if len(out) < len(live):  # then what went, aligned, so that both sides are quoted
        first, *rest = describe_live_difference(live, out, scenario.truth.live_start)
        return [f"output has {plural(len(out), 'message')}; the task in flight alone has {len(live)}: {first}",
                *rest]
    offset = len(out) - len(live)
    if all(tx.same_json(want, got) for want, got in zip(live, out[offset:])):
        return []
    return describe_live_difference(live, out, scenario.truth.live_start)


def _describe_message(message: Any) -> str:
    """Returns a short label of a message: its role and its first block's label."""
    if not isinstance(message, Mapping):
        return type(message).__name__
    content = message.get("content")
    first = "text" if isinstance(content, str) else tx.describe_block(content[0]) if content else "no content"
    return f"{message.get('role')}: {first}"


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _pair_by_role(live: Sequence[Any], out: Sequence[Any], i1: int, i2: int, j1: int,
                  j2: int) -> tuple[str, int, int, int, int]:
    """Returns the first difference inside a replaced stretch, its messages paired by role: a
    message is "changed" only when a message of its role stands for it. At the start of the task
    (``i1 == 0``) the stretch of output also holds the settled history kept, so it pairs from the end."""
    import difflib

    if i1 == 0:
        k, m = i2, j2
        while k > i1 and m > j1 and _role(live[k - 1]) == _role(out[m - 1]):
            k, m = k - 1, m - 1
        return ("delete", i1, k, m, m) if k > i1 else ("replace", i1, i1 + 1, m, m + 1)
    roles = difflib.SequenceMatcher(None, [_role(x) for x in live[i1:i2]], [_role(x) for x in out[j1:j2]],
                                    autojunk=False).get_opcodes()
    tag, a1, a2, b1, b2 = next(op for op in roles if op[0] != "equal" or op[1] < op[2])
    if tag == "equal":
        return "replace", i1 + a1, i1 + a1 + 1, j1 + b1, j1 + b1 + 1
    return ("replace" if tag == "replace" else tag), i1 + a1, i1 + a2, j1 + b1, j1 + b2


def describe_live_difference(live: Sequence[Any], out: Sequence[Any], live_start: int) -> list[str]:
    """Returns lines naming the first difference between the task in flight (``live``, from
    ``input[live_start]``) and the output, after aligning the two as a diff does: a message
    "removed", one "inserted", or one "changed" (with what changed in it)."""
    import difflib

    a, b = tx.canonical_each(live), tx.canonical_each(out)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if ops and ops[0][0] == "insert" and ops[0][1] == 0:
        ops = ops[1:]  # settled history kept before the task in flight
    if not ops:  # pragma: no cover - the suffix differs, so something does
        return ["the output does not end with the task in flight"]
    first: tuple[str, int, int, int, int] = ops[0]
    tag, i1, i2, j1, j2 = first
    if tag == "replace":
        tag, i1, i2, j1, j2 = _pair_by_role(live, out, i1, i2, j1, j2)
    if tag == "replace":
        want, got = live[i1], out[j1]
        return [f"output[{j1}] is input[{live_start + i1}] (message {i1} of the task in flight), changed:"] + [
            "  " + line for line in message_diff(want, got)]
    if tag == "delete":
        gone = [f"input[{live_start + i}] ({_describe_message(live[i])})" for i in range(i1, i2)]
        head = (f"{gone[0]}, message {i1} of the task in flight, was removed"
                + (f", and {len(gone) - 1} after it: {', '.join(gone[1:4])}" + (", ..." if len(gone) > 4 else "")
                   if len(gone) > 1 else ""))
        after = (f"; output[{j1}] is input[{live_start + i2}]" if j1 < len(out) and i2 < len(live) else
                 f"; the output ends at output[{j1 - 1}]" if 0 < j1 == len(out) else "")
        return [head + after]
    new = [f"output[{j}] ({_describe_message(out[j])})" for j in range(j1, j2)]
    where = (f"before input[{live_start + i1}] (message {i1} of it)" if i1 < len(live) else
             f"after its last message, input[{live_start + len(live) - 1}]")
    return [f"{new[0]} was inserted into the task in flight {where}"
            + (f", and {len(new) - 1} more after it" if len(new) > 1 else "")]


def _tool_facts(messages: Sequence[Any]) -> list[tuple[Any, list[str], list[str], list[str], bool]]:
    """Returns, for each message, in one pass over its blocks: its role, the ``type`` of each block
    (``tx.block_types``), its client tool_use ids (``tx.tool_use_ids``), its tool_result ids
    (``tx.tool_result_ids``), and whether it holds a server result (``tx.is_server_result``)."""
    facts = []
    for message in messages:
        types: list[str] = []
        uses: list[str] = []
        results: list[str] = []
        server_result = False
        for block in tx.blocks(message):
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type", "")
            types.append(kind)
            if kind == tx.CLIENT_TOOL_RESULT:
                if "tool_use_id" in block:
                    results.append(block["tool_use_id"])
                continue
            if kind == tx.CLIENT_TOOL_USE and "id" in block:
                uses.append(block["id"])
            if not server_result and isinstance(block.get("tool_use_id"), str):
                server_result = True
        facts.append((message.get("role"), types, uses, results, server_result))
    return facts


def _orphan_results(messages: Sequence[Any]) -> dict[Any, str]:
    """Returns tool_use_id -> problem for each result that does not answer the message before it;
    keyed apart, ``(tool_use_id, "gone")`` when its call is nowhere before it (a window cut at a
    notice that stood between the call and its result leaves that)."""
    problems: dict[Any, str] = {}
    called: set[str] = set()
    facts = of_history(_tool_facts, messages)
    for i, message in enumerate(messages):
        role, _, uses, results, server_result = facts[i]
        from_assistant = i > 0 and facts[i - 1][0] == "assistant"
        calls = set(facts[i - 1][2]) if from_assistant and results else set()
        for use_id in results:
            if use_id not in calls and use_id in called:
                problems[use_id] = (f"output[{i}] holds a tool_result for {use_id}, which is not a tool_use "
                                    f"of output[{i - 1}]")
            elif use_id not in calls:
                problems[(use_id, "gone")] = (f"output[{i}] holds a tool_result for {use_id}, whose tool_use is "
                                              f"nowhere before it" if i else
                                              f"output[0] opens on a tool_result for {use_id}")
        called.update(uses)
        if role == "assistant" and server_result:  # no server result: nothing below can be a problem
            server_calls = set(tx.server_tool_use_ids(messages[i - 1])) if from_assistant else set()
            seen: set[str] = set()
            for block in tx.blocks(message):
                if tx.is_server_tool_use(block):
                    seen.add(str(block.get("id")))
                elif tx.is_server_result(block):
                    if block["tool_use_id"] not in seen | server_calls:
                        problems[block["tool_use_id"]] = (f"output[{i}] holds {article(str(block.get('type')))} for "
                                                          f"{block['tool_use_id']} with no server tool use before it")
    return problems


def _unanswered_uses(messages: Sequence[Any]) -> dict[str, str]:
    """Returns tool_use id -> problem for each use before the last message not answered next."""
    problems: dict[str, str] = {}
    facts = of_history(_tool_facts, messages)
    for i in range(len(messages) - 1):
        role, _, uses, _, _ = facts[i]
        if role != "assistant" or not uses:
            continue
        following = facts[i + 1]
        answered = set(following[3]) if following[0] == "user" else set()
        for use_id in uses:
            if use_id not in answered:
                problems[use_id] = f"output[{i}] has tool_use {use_id} with no tool_result in output[{i + 1}]"
    return problems


def _results_not_first(messages: Sequence[Any]) -> dict[str, str]:
    """Returns message key -> problem for each message where a block comes before a tool result."""
    problems: dict[str, str] = {}
    facts = of_history(_tool_facts, messages)
    for i, message in enumerate(messages):
        types = facts[i][1]
        if tx.CLIENT_TOOL_RESULT in types:
            first_other = next((j for j, t in enumerate(types) if t != tx.CLIENT_TOOL_RESULT), len(types))
            if tx.CLIENT_TOOL_RESULT in types[first_other:]:
                problems[tx.canonical(message)] = (f"output[{i}].content[{first_other}] ({types[first_other]}) "
                                             "comes before a tool_result")
    return problems


def _introduced(rule: Callable[[Sequence[Any]], dict[Any, str]]) -> Check:
    """Returns a check that reports the rule's violations in the output that the input did not have."""
    def check(scenario: Scenario, obs: Observation) -> list[str]:
        found = rule(_output(obs))
        if not found:
            return []  # nothing to excuse: the input's own violations are not needed
        already = of_history(rule, scenario.history)
        return [problem for key, problem in found.items() if key not in already]
    check.__doc__ = rule.__doc__
    return check


def _server_pair_problems(messages: Sequence[Any]) -> dict[tuple[str, str], str]:
    """Returns ``tx.server_pair_problems`` of the messages, each problem placed in the output."""
    return {key: "output" + problem for key, problem in tx.server_pair_problems(messages).items()}


def _callers_missing(messages: Sequence[Any]) -> dict[str, str]:
    """Returns tool_use id -> problem for each client tool use whose ``caller.tool_id`` names no
    server tool use before it (in an earlier message or earlier in its own)."""
    problems: dict[str, str] = {}
    seen: set[str] = set()
    for i, message in enumerate(messages):
        for j, block in enumerate(tx.blocks(message)):
            if not isinstance(block, Mapping):
                continue
            if tx.is_server_tool_use(block):
                seen.add(str(block.get("id")))
                continue
            caller = block.get("caller")
            if block.get("type") != tx.CLIENT_TOOL_USE or not isinstance(caller, Mapping):
                continue
            source = caller.get("tool_id")
            if isinstance(source, str) and source not in seen:
                problems[str(block.get("id"))] = (
                    f"output[{i}].content[{j}] (tool_use {block.get('id')}) was called by server tool use "
                    f"{source} (caller {caller.get('type')}), which is not before it: the provider refuses "
                    "the request (source tool not found); keep the server tool use or drop its calls with it")
    return problems


results_answer_previous = checks("tools.results-answer-previous")(_introduced(_orphan_results))
server_results_kept = checks("tools.server-results-kept")(_introduced(_server_pair_problems))
caller_use_kept = checks("tools.caller-use-kept")(_introduced(_callers_missing))
uses_answered_next = checks("tools.uses-answered-next")(_introduced(_unanswered_uses))
results_first = checks("tools.results-first")(_introduced(_results_not_first))


def _unmatched(wanted: Iterable[tuple[int, int, Mapping[str, Any], str]],
               pool: Counter[str]) -> Iterator[tuple[int, int, Mapping[str, Any]]]:
    """Yields ``(i, j, block)`` of the ``(i, j, block, canonical key)`` of ``wanted`` with no
    byte-identical partner left in ``pool`` (canonical JSON -> count)."""
    available = Counter(pool)
    for i, j, block, key in wanted:
        if available[key] > 0:
            available[key] -= 1
        else:
            yield i, j, block


def _keys_of(messages: Sequence[Any]) -> list[list[str]]:
    """Returns the canonical JSON of each block (``tx.blocks``) of each message."""
    return [of_object(_block_keys, message) for message in messages]


def _block_keys(message: Any) -> list[str]:
    return tx.canonical_each(tx.blocks(message))


def _reasoning_keys(messages: Sequence[Any]) -> Counter[str]:
    """Returns how many times each reasoning block (canonical JSON) occurs in ``messages``."""
    keys = of_history(_keys_of, messages)
    return Counter(keys[i][j] for i, j, _ in tx.reasoning_blocks(messages))


def _is_reasoning_block(block: Any) -> bool:
    """Returns whether ``block`` is one ``tx.reasoning_blocks`` yields: a mapping of a reasoning type."""
    return isinstance(block, Mapping) and block.get("type") in tx.REASONING_TYPES


def _pool(history: Sequence[Any], needed: Iterable[str], selected: Callable[[Any], bool]) -> Counter[str]:
    """Returns how many blocks of ``history`` that ``selected`` picks have each canonical JSON of
    ``needed``, read only from the messages that hold a block of that JSON (``_by_block``): the
    counts of the other keys are never read."""
    keys, by_block = of_history(_keys_of, history), of_history(_by_block, history)
    pool: Counter[str] = Counter()
    for key in needed:
        count = 0
        for index in dict.fromkeys(by_block.get(key, ())):  # each holder once, though it holds the key twice
            for block, held in zip(tx.blocks(history[index]), keys[index]):
                if held == key and selected(block):
                    count += 1
        if count:
            pool[key] = count
    return pool


def _kept_intact(scenario: Scenario, obs: Observation, select: Callable[[Sequence[Any]], Any],
                 selected: Callable[[Any], bool], what: str) -> list[str]:
    """Returns one line per block ``select`` picks from the output that is not byte-identical to one
    of the input's blocks that ``selected`` picks (the same kind), each match used once."""
    out = _output(obs)
    keys = of_history(_keys_of, out)
    wanted = [(i, j, block, keys[i][j]) for i, j, block in select(out)]
    if not wanted:
        return []
    pool = _pool(scenario.history, dict.fromkeys(key for *_, key in wanted), selected)
    return [f"output[{i}].content[{j}] ({tx.describe_block(block)}) is not byte-identical to any {what}"
            for i, j, block in _unmatched(wanted, pool)]


@checks("reasoning.kept-intact")
def reasoning_kept_intact(scenario: Scenario, obs: Observation) -> list[str]:
    return _kept_intact(scenario, obs, tx.reasoning_blocks, _is_reasoning_block, "reasoning block of the input")


@checks("opaque.kept-intact")
def opaque_kept_intact(scenario: Scenario, obs: Observation) -> list[str]:
    return _kept_intact(scenario, obs, tx.opaque_blocks, tx.is_opaque, "opaque block of the input "
                        "(compaction, encrypted content, signatures are sent back verbatim)")


@checks("reasoning.live-preserved")
def reasoning_live_preserved(scenario: Scenario, obs: Observation) -> list[str]:
    start = scenario.truth.live_start
    keys = of_history(_keys_of, scenario.history)
    wanted = ((i, j, block, keys[start + i][j]) for i, j, block in tx.reasoning_blocks(scenario.live_span))
    return [f"input[{start + i}].content[{j}] ({block.get('type')}) of the task in flight is gone from the output"
            for i, j, block in _unmatched(wanted, of_history(_reasoning_keys, _output(obs)))]


def _rewritten_assistant_turns(scenario: Scenario, obs: Observation,
                               shown: Callable[[list[Any]], bool]) -> Iterator[tuple[int, list[Any]]]:
    """Yields ``(index, content)`` of output assistant messages whose content ``shown`` selects
    and that no input message equals."""
    original: frozenset[str] | None = None
    for i, message in enumerate(_output(obs)):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list) and content and shown(content):
            if original is None:
                original = of_history(_input_keys, scenario.history)
            if tx.canonical(message) not in original:
                yield i, content


@checks("assistant.no-trailing-reasoning")
def no_trailing_reasoning(scenario: Scenario, obs: Observation) -> list[str]:
    return [f"output[{i}] ends with {article(str(content[-1].get('type')))} block"
            for i, content in _rewritten_assistant_turns(scenario, obs, lambda c: tx.is_reasoning(c[-1]))]


@checks("assistant.reasoning-leads")
def reasoning_leads(scenario: Scenario, obs: Observation) -> list[str]:
    return [f"output[{i}] holds reasoning but opens with {tx.describe_block(content[0])}"
            for i, content in _rewritten_assistant_turns(
                scenario, obs, lambda c: any(tx.is_reasoning(b) for b in c) and not tx.is_reasoning(c[0]))]


@checks("reasoning.latest-turn-intact")
def latest_turn_intact(scenario: Scenario, obs: Observation) -> list[str]:
    history = scenario.history
    last_turn = next((i for i in range(len(history) - 1, -1, -1) if history[i].get("role") != "system"), None)
    if last_turn is None or history[last_turn].get("role") != "assistant":
        return []
    last = history[last_turn]
    if not any(tx.is_reasoning(b) for b in tx.blocks(last)):
        return []
    out = _output(obs)
    if out and tx.same_json(out[-1], last):
        return []
    where = f"input[{len(scenario.history) - 1}]"
    if not out:
        return [f"{where}, the latest assistant turn, is gone"]
    return [f"output[{len(out) - 1}] is not {where}, the latest assistant turn:"] + [
        "  " + line for line in message_diff(last, out[-1])]


def _by_block(history: Sequence[Any]) -> dict[str, list[int]]:
    """Returns canonical block -> indexes of the messages with list content that hold it."""
    keys = of_history(_keys_of, history)
    by_block: dict[str, list[int]] = {}
    for i, message in enumerate(history):
        if isinstance(message.get("content"), list):
            for key in keys[i]:
                holders = by_block.get(key)
                if holders is None:
                    by_block[key] = [i]
                else:
                    holders.append(i)
    return by_block


def _source_message(message: Mapping[str, Any], message_keys: list[str], history: Sequence[Mapping[str, Any]],
                    input_keys: list[list[str]], by_block: dict[str, list[int]]) -> int | None:
    """Returns the input index an output message was cut from, if its blocks all come from one;
    of several such inputs, one that holds its reasoning blocks too, then one it keeps whole, wins."""
    blocks = tx.blocks(message)
    kept = [key for b, key in zip(blocks, message_keys) if not tx.is_reasoning(b)]
    if not kept or isinstance(message.get("content"), str):
        return None
    present = set(message_keys)
    ranked = []
    for index in by_block.get(kept[0], []):
        source = history[index]
        if source.get("role") == message.get("role"):
            pool = set(input_keys[index])
            if all(key in pool for key in kept):
                whole = all(key in present for b, key in zip(tx.blocks(source), input_keys[index])
                            if not tx.is_reasoning(b))
                ranked.append((not present <= pool, not whole, index))
    return min(ranked)[2] if ranked else None


@checks("blocks.no-silent-drop")
def no_silent_drop(scenario: Scenario, obs: Observation) -> list[str]:
    history = scenario.history
    input_keys, by_block = of_history(_keys_of, history), of_history(_by_block, history)
    out = _output(obs)
    output_keys = of_history(_keys_of, out)
    problems = []
    for i, message in enumerate(out):
        message_keys = output_keys[i]
        source = _source_message(message, message_keys, history, input_keys, by_block)
        if source is None:
            continue
        present = set(message_keys)
        for j, (block, key) in enumerate(zip(tx.blocks(history[source]), input_keys[source])):
            if not tx.is_reasoning(block) and key not in present:
                problems.append(f"output[{i}] keeps input[{source}] but drops its content[{j}] "
                                f"({tx.describe_block(block)})")
    return problems


_IDENTITY_FIELDS = ("id", "tool_use_id", "signature", "data")


def _identity(block: Mapping[str, Any]) -> tuple[Any, str, str] | None:
    """Returns what names a block: its type with its first id-like string field, or a text
    block's text; None when nothing does."""
    get = block.get
    for key in _IDENTITY_FIELDS:
        value = get(key)
        if isinstance(value, str):
            return (get("type"), key, value)
    text = get("text")
    if isinstance(text, str) and get("type") == "text":
        return ("text", "text", text)
    return None


@checks("blocks.fields-preserved")
def fields_preserved(scenario: Scenario, obs: Observation) -> list[str]:
    out = _output(obs)
    output_keys = of_history(_keys_of, out)
    wanted: dict[tuple[Any, str, str], list[tuple[int, int, Mapping[str, Any]]]] = {}
    for i, message in enumerate(out):
        if isinstance(message.get("content"), list):
            for j, block in enumerate(message["content"]):
                ident = _identity(block) if isinstance(block, Mapping) else None
                if ident is not None:
                    wanted.setdefault(ident, []).append((i, j, block))
    if wanted:  # a block byte-identical to an input block keeps every field of it: only the others are looked up
        held = of_history(_by_block, scenario.history)
        wanted = {ident: places for ident, places in
                  ((ident, [p for p in places if output_keys[p[0]][p[1]] not in held]) for ident, places in wanted.items())
                  if places}
    # of the identities wanted only: the input blocks and their canonical JSON (shared with other checks)
    originals: dict[tuple[Any, str, str], tuple[list[Mapping[str, Any]], set[str]]] = {}
    history = scenario.history if wanted else []
    for message, message_keys in zip(history, of_history(_keys_of, history)):
        if isinstance(message.get("content"), list):
            for block, key in zip(message["content"], message_keys):
                ident = _identity(block)
                if ident in wanted:
                    found = originals.setdefault(ident, ([], set()))
                    found[0].append(block)
                    found[1].add(key)
    problems = []
    for ident, places in wanted.items():
        candidates, keys = originals.get(ident, ([], set()))
        if not candidates:
            continue
        for i, j, block in places:
            if output_keys[i][j] in keys or any(tx.same_json(block, c) for c in candidates):
                continue  # the same JSON as one of them
            lost = sorted(set(candidates[0]) - set(block))
            what = f"lost field(s) {', '.join(lost)}" if lost else "changed"
            problems.append((i, j, f"output[{i}].content[{j}] ({tx.describe_block(block)}) {what}:",
                             _focused_diff(candidates[0], block, limit=4)))
    return [line for *_, head, diff in sorted(problems, key=lambda p: (p[0], p[1]))
            for line in (head, *("  " + d for d in diff))]


@checks("output.idempotent")
def idempotent(scenario: Scenario, obs: Observation) -> list[str]:
    second = obs.second
    if second is None:
        return []
    if not second.returned:
        return [f"compacting the output again failed: {second.error_type or 'hang'}: {second.error}"]
    out, again = _output(obs), second.output
    if tx.same_json(out, again):
        return []
    if not isinstance(again, list):
        return [f"compacting the output again returned {a_type(again)}"]
    k = next((k for k, (a, b) in enumerate(zip(out, again)) if not tx.same_json(a, b)), None)
    if k is None:
        return [f"compacting the output again turned {plural(len(out), 'message')} into {len(again)}"]
    return [f"compacting the output again changed output[{k}]:"] + [
        "  " + line for line in message_diff(out[k], again[k])]


def _last_turn(messages: Sequence[Any]) -> int | None:
    """Returns the index of the last message that is not a system message, if any."""
    return next((i for i in range(len(messages) - 1, -1, -1)
                 if isinstance(messages[i], Mapping) and messages[i].get("role") != "system"), None)


def _declared_calls(scenario: Scenario) -> Iterator[tuple[int, int, Mapping[str, Any]]]:
    """Yields ``(index, block index, block)`` of each declared unanswered call in the task in flight."""
    declared = set(scenario.truth.unanswered)
    for i in range(scenario.truth.live_start, len(scenario.history)):
        for j, block in enumerate(tx.blocks(scenario.history[i])):
            if block.get("type") == tx.CLIENT_TOOL_USE and block.get("id") in declared:
                yield i, j, block


@checks("tools.unanswered-kept")
def unanswered_kept(scenario: Scenario, obs: Observation) -> list[str]:
    out = _output(obs)
    pending_at, last = _last_turn(scenario.history), _last_turn(out)
    tail = tx.blocks(out[last]) if last is not None and out[last].get("role") == "assistant" else []
    problems = []
    for i, j, call in _declared_calls(scenario):
        where = f"unanswered call {call.get('id')} (input[{i}].content[{j}])"
        if i != pending_at:
            if not any(tx.same_json(call, b) for m in out for b in tx.blocks(m)):
                problems.append(f"{where} of the task in flight is not in the output unchanged")
            continue
        if not tail:
            problems.append(f"{where} awaits its result, but the output does not end on an assistant message")
            continue
        twin = next((b for b in tail if b.get("type") == tx.CLIENT_TOOL_USE and b.get("id") == call.get("id")), None)
        if twin is None:
            problems.append(f"{where} awaits its result, but is not in output[{last}], the last assistant turn")
        elif not tx.same_json(call, twin):
            problems.append(f"{where} awaits its result, but changed in output[{last}]:")
            problems.extend("  " + line for line in _focused_diff(call, twin, limit=4))
    return problems


@checks("reference.exact-output")
def reference_exact(scenario: Scenario, obs: Observation) -> list[str]:
    expect = scenario.expect
    if expect.reference_raises is not None:
        if obs.error_type == expect.reference_raises:
            return []
        got = f"raised {obs.error_type}" if obs.error_type else "returned"
        return [f"expected the reference to raise {expect.reference_raises}; it {got}"]
    if not obs.returned:
        return [f"expected an output; the call failed: {obs.error_type}: {obs.error}"]
    want, got = expect.reference_output or [], obs.output
    if tx.same_json(want, got):
        return []
    if not isinstance(got, list) or len(want) != len(got):
        length = len(got) if isinstance(got, list) else type(got).__name__
        return [f"expected {len(want)} messages, got {length}"]
    k = next(k for k, (a, b) in enumerate(zip(want, got)) if not tx.same_json(a, b))
    return [f"output[{k}] differs from the expected reference output:"] + [
        "  " + line for line in message_diff(want[k], got[k])]


_SHOWN = 2  # loop failures quoted in a record; the rest are counted


def _loop_failures(scenario: Scenario, obs: Observation, invariant: str) -> list[str]:
    """Returns the prefix-check failures of ``invariant`` over every mode of the loop the
    observation played, the first few in full and the rest counted."""
    found = [p for p in of_pair(_loop_problems, scenario.history, obs.plays) if p.invariant == invariant]
    shown = [p.message for p in found[:_SHOWN]]  # (only those are written: a message names a change)
    if len(found) > _SHOWN:
        shown.append(f"... and {len(found) - _SHOWN} more replayed thinking blocks fail it")
    return shown


def _loop_problems(history: Sequence[Any], plays: Sequence[loop.Play]) -> list[prefix_check.Problem]:
    return [p for played in plays for p in prefix_check.prefix_problems(history, played)]


@checks("thinking.replayed-intact")
def thinking_replayed_intact(scenario: Scenario, obs: Observation) -> list[str]:
    return _loop_failures(scenario, obs, "thinking.replayed-intact")


@checks("thinking.prefix-unchanged")
def thinking_prefix_unchanged(scenario: Scenario, obs: Observation) -> list[str]:
    return _loop_failures(scenario, obs, "thinking.prefix-unchanged")


@checks("thinking.chain-unbroken")
def thinking_chain_unbroken(scenario: Scenario, obs: Observation) -> list[str]:
    return _loop_failures(scenario, obs, "thinking.chain-unbroken")


def _task_start(scenario: Scenario, answer: int) -> int | None:
    """Returns where the task in flight begins in the request the loop sends for message ``answer``:
    by ``truth.tasks`` where the scenario declares them. Else, for a call of the scenario's own task
    in flight (answered after its declared ``live_start``), that start, or later where the request's
    own messages end a turn that settles after it (``find_live_start``: a progress note, an answer a
    late result follows; fewer messages judged live, never more); None for a call of an earlier
    task, whose truth the scenario does not declare, and for every call of a scenario that allows a
    refusal (its order hides where its tasks begin: a reordered store, interleaved tasks, whose
    earlier requests no provider saw as the loop replays them)."""
    if scenario.truth.tasks:
        return scenario.truth.live_start_before(answer)
    declared = scenario.truth.live_start
    if scenario.expect.refusal_allowed or answer <= declared:
        return None
    return max(declared, tx.find_live_start(scenario.history[:answer]))


def _calls_with_truth(scenario: Scenario, played: loop.Play) -> Iterator[tuple[loop.Step, list[Any], int]]:
    """Yields each call of the loop but the last (the scenario's own) with the history it was given
    and where the task in flight begins in it: by ``truth.tasks`` in the script; in what a stateful
    agent kept, as many messages from its end as that task has so far, when it kept them as they
    came (else an earlier call failed already, and this one is not judged). A call the target
    declined is not yielded: the agent, not the target, made its request."""
    history, previous = scenario.history, None
    for step in played.steps:
        if step.answer is None:
            return
        task = _task_start(scenario, step.answer)
        if task is None:  # (no truth for this call: not judged)
            given, start = [], -1
        elif played.mode == "stateless" or previous is None:
            given, start = history[:step.answer], task
        else:
            given = [*previous.request, *history[previous.answer:step.answer]]
            start = len(given) - (step.answer - task)
            if start < 0 or not tx.same_json(given[start:], history[task:step.answer]):
                start = -1
        previous = step
        if start >= 0 and not step.declined:  # (a declined call's request is the agent's, not the target's)
            yield step, given, start


@checks("loop.every-call")
def every_call(scenario: Scenario, obs: Observation) -> list[str]:
    problems = [played.failed for played in obs.plays if played.failed]  # a call that stopped the loop failing
    checks = [inv for inv in CATALOG if inv.level == "MUST" and inv.needs_output and not inv.loop]
    for played in obs.plays:
        for step, given, start in _calls_with_truth(scenario, played):
            if tx.same_json(step.request, given):
                continue  # (what it was given, sent as it was: a failure would be the request's own)
            at = replace(scenario, history=given, truth=Truth(start, tasks=scenario.truth.tasks),
                         expect=Expectations(skip=scenario.expect.skip))
            seen = Observation(output=step.request)
            with shared_facts():  # (the facts of this call's request, for its checks alone)
                for inv in checks:
                    if inv.id in scenario.expect.skip or (scenario.expect.invariants is not None
                                                          and inv.id not in scenario.expect.invariants):
                        continue  # (what the scenario does not check at its own call, it does not check at these)
                    try:
                        found = inv.check(at, seen)
                    except Exception as exc:  # noqa: BLE001 - garbage output must not crash the run
                        found = [f"the output could not be checked: {type(exc).__name__}: {exc}"]
                    if found:
                        problems.append(f"call {step.number} ({played.mode}, the request answered by "
                                        f"messages[{step.answer}], its task in flight from input[{start}]) fails "
                                        f"{inv.id}: {found[0].splitlines()[0]}")
    if len(problems) > _SHOWN:
        problems = problems[:_SHOWN] + [f"... and {len(problems) - _SHOWN} more"]
    return problems


_TRANSCRIBED = 20  # the shortest reasoning text looked for in other text (shorter ones match by chance)


def _visible_strings(value: Any) -> Iterator[str]:
    """Yields every string of a history outside the reasoning blocks' own text (``thinking``,
    ``data``), keys included: what is sent as prompt text."""
    if isinstance(value, Mapping):
        skip = tx.REASONING_FIELD.get(str(value.get("type")))
        for key, item in value.items():
            yield from _strings(key)
            if key != skip:
                yield from _visible_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _visible_strings(item)
    else:
        yield from _strings(value)


def _reasoning_texts(history: Any) -> frozenset[str]:
    """Returns the reasoning texts of the history's reasoning blocks long enough to look for (``_TRANSCRIBED``)."""
    messages = [m for m in history if isinstance(m, Mapping)] if isinstance(history, list) else []
    return frozenset(text for _, _, block in tx.reasoning_blocks(messages)
                     if (text := tx.reasoning_text(block)) is not None and len(text) >= _TRANSCRIBED)


_PIECE, _STRIDE = 40, 8  # a quoted excerpt of reasoning: 40 characters, looked for from every 8th one


def _pieces(text: str) -> list[str]:
    """Returns the ``_PIECE``-character pieces of ``text`` that start every ``_STRIDE`` characters,
    and its last one (none when it is shorter): a copy of any ``_PIECE + _STRIDE - 1`` consecutive
    characters of it holds one of them whole."""
    if len(text) < _PIECE:
        return []
    return [*(text[i:i + _PIECE] for i in range(0, len(text) - _PIECE + 1, _STRIDE)), text[-_PIECE:]]


def _visible_blob(history: Any) -> str:
    return "\x00".join(_visible_strings(history))


def _quoted(texts: Iterable[str], strings: Iterable[str], before: str) -> set[str]:
    """Returns those of ``texts`` that ``strings`` hold whole, raw or escaped (``forms_of``), or of
    which they hold an excerpt (a piece of ``_pieces``, as written), that ``before`` (the text the
    history showed already) does not hold: what the visible history holds proves nothing. The
    output is read once, window by window (its length, not the number of pieces, sets the cost)."""
    blob = "\x00".join(strings)
    if not blob:
        return set()
    texts = list(texts)
    found = {t for t in texts if any(form in blob and form not in before for form in forms_of(t))}
    pieces: dict[str, str] = {}
    for text in texts:
        if text not in found:
            for piece in _pieces(text):
                pieces.setdefault(piece, text)
    if pieces and len(blob) >= _PIECE:
        for i in range(len(blob) - _PIECE + 1):
            quoted = pieces.get(blob[i:i + _PIECE])
            if quoted is not None and quoted not in found and blob[i:i + _PIECE] not in before:
                found.add(quoted)
    return found


@checks("reasoning.not-transcribed")
def reasoning_not_transcribed(scenario: Scenario, obs: Observation) -> list[str]:
    own = {id(message) for message in scenario.history}  # (a message handed back is the history's own, unchanged)
    written = [message for message in _output(obs) if id(message) not in own]
    texts = of_history(_reasoning_texts, scenario.history) if written else frozenset()
    if not texts:
        return []
    if not _quoted(texts, _visible_strings(written), ""):  # (read first with nothing ruled out: mostly, nothing)
        return []
    keys = of_history(_input_keys, scenario.history)  # (a message written again as it was adds nothing)
    held = _quoted(texts, _visible_strings([m for m in written if tx.canonical(m) not in keys]),
                   of_history(_visible_blob, scenario.history))  # (a piece the request repeats proves nothing)
    if not held:
        return []
    shown = ", ".join(f"{tx.fingerprint(t)} ({len(t)} characters)" for t in sorted(held)[:3])
    return [f"the output's text holds the reasoning of {plural(len(held), 'block')} of the history outside a "
            f"reasoning block: {shown}; the provider refuses reasoning sent back as prompt text (reasoning "
            "extraction): keep thinking in its blocks, or drop it"]


def _strings(value: Any) -> Iterator[str]:
    """Yields every string inside a JSON-like value, keys included; bytes are read as UTF-8 (what a
    model call sends of them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (bytes, bytearray, memoryview)):
        yield bytes(value).decode("utf-8", errors="replace")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def summarizer_prompts(obs: Observation) -> list[tuple[str, Any]]:
    """Returns ``(which call, prompt)`` for every prompt the target gave the harness's summarizer: on
    the run's call, on its output (idempotence) and on each call of the agent loop."""
    found = [("the run's call", prompt) for prompt in obs.summarized]
    if obs.second is not None:
        found += [("the call on its output", prompt) for prompt in obs.second.summarized]
    for played in obs.plays:
        found += [(f"the {played.mode} agent loop", prompt) for prompt in played.prompts()]
    return found


@checks("summary.no-reasoning")
def summary_no_reasoning(scenario: Scenario, obs: Observation) -> list[str]:
    prompts = summarizer_prompts(obs)
    if not prompts:
        return []
    texts = {t for t in secrets_in(scenario.history) if len(t) >= 8}  # (shorter ones match by chance)
    problems = []
    for k, (call, prompt) in enumerate(prompts):
        held = _quoted(texts, _strings(prompt), of_history(_visible_blob, scenario.history))
        if held:
            shown = ", ".join(f"{tx.fingerprint(t)} ({len(t)} characters)" for t in sorted(held)[:3])
            problems.append(f"summarizer prompt {k + 1} of {len(prompts)} ({call}) holds the reasoning of "
                            f"{plural(len(held), 'block')} of the history: {shown}; strip thinking and "
                            "redacted_thinking before summarising")
    return problems


def _built(entry: Entry) -> Invariant:
    """Returns the catalog entry with its check; raises ``LookupError`` when no check is bound to its id."""
    if entry.id not in CHECKS:
        raise LookupError(f"the invariant {entry.id} has no check (@checks({entry.id!r}) on its function)")
    return Invariant(**{f.name: getattr(entry, f.name) for f in fields(Entry)}, check=CHECKS[entry.id])


if set(CHECKS) - {entry.id for entry in ENTRIES}:
    raise LookupError(f"checks bound to no catalog entry: {sorted(set(CHECKS) - {e.id for e in ENTRIES})}")
CATALOG: tuple[Invariant, ...] = tuple(_built(entry) for entry in ENTRIES)
BY_ID: dict[str, Invariant] = {inv.id: inv for inv in CATALOG}
CRASH_CHECK: Invariant = BY_ID[the_one("reports_crash").id]  # the check of the call itself
OUTPUT_GUARD: Invariant = BY_ID[the_one("guards_output").id]  # blocks the others on unreadable output
LOOP_CHECK: Invariant = BY_ID[the_one("reports_loop").id]  # names a call of the agent loop that failed


def catalog_table() -> str:
    """Returns the catalog as a Markdown table: id, level, statement."""
    rows = ["| id | level | statement |", "| --- | --- | --- |"]
    rows += [f"| `{inv.id}` | {inv.level} | {inv.statement} |" for inv in CATALOG]
    return "\n".join(rows)
