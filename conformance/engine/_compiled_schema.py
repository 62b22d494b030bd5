"""A JSON Schema compiled to Python code (fastjsonschema) for files with no problem; the located,
pure-Python validator (jsonschema) reads only the files this one refuses.

The compiler reads draft-07, so a schema is compiled only when it uses keywords that mean the same
there as in 2020-12: the compiled check then accepts nothing the located validator would refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fastjsonschema


def compiled_check(schema: dict[str, Any]) -> Callable[[Any], Any] | None:
    """Returns a function that raises ``fastjsonschema.JsonSchemaException`` on a document
    ``schema`` refuses (and possibly on a few it accepts), or None when the schema uses a keyword
    draft-07 would read differently."""
    strict = _no_bool_for_numbers(schema)
    if not _draft7_safe(strict):
        return None
    return fastjsonschema.compile({**strict, "$schema": "http://json-schema.org/draft-07/schema#"})


def _no_bool_for_numbers(node: Any) -> Any:
    """Returns a copy of a schema where a numeric ``const``/``enum`` also refuses booleans, as
    JSON Schema equality does (Python's ``True == 1`` does not)."""
    if isinstance(node, list):
        return [_no_bool_for_numbers(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _no_bool_for_numbers(v) for k, v in node.items()}
    values = [out["const"]] if "const" in out else out.get("enum", [])
    if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        out = {"allOf": [out, {"not": {"type": "boolean"}}]}
    return out


_DRAFT7_SAME = frozenset({  # keywords that mean the same in draft-07 (what the compiler reads) and 2020-12
    "type", "required", "additionalProperties", "properties", "items", "minItems", "maxItems", "const", "enum",
    "pattern", "minLength", "maxLength", "uniqueItems", "minimum", "maximum", "minProperties", "maxProperties",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$defs", "$schema", "$id",
    "title", "description", "$comment", "default", "examples",
    "format"})  # asserted by the compiler, an annotation in 2020-12: stricter compiled, never looser
_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else")


def _draft7_safe(node: Any) -> bool:
    """Returns whether a schema uses only keywords that draft-07 reads the same way, and no
    ``$ref`` with siblings (draft-07 ignores them)."""
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict) or not set(node) <= _DRAFT7_SAME:
        return False
    if "$ref" in node and set(node) - {"$ref", "description", "title", "$comment"}:
        return False
    children = [node[k] for k in _SUBSCHEMA if k in node]
    children += [*node.get("properties", {}).values(), *node.get("$defs", {}).values()]
    children += [*node.get("allOf", []), *node.get("anyOf", []), *node.get("oneOf", [])]
    return all(_draft7_safe(child) for child in children)
