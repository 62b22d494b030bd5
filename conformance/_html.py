"""HTML pages rendered by Jinja2 from a package's ``templates/`` folder.

Every value a template writes is escaped as ``html.escape`` does, unless it is markup: a ``Markup``
fragment the code built on purpose (a style sheet, a section another package renders), or a macro's
output marked ``|safe``. A ``compact`` template is written as one line: its line breaks and the
indentation that opens a line are for reading, so a space the page needs stands inside a line, never
at its end.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from html import escape
from typing import Any


class Markup(str):
    """A string a template writes as it is: markup the code built, not a value to escape."""

    __slots__ = ()

    def __html__(self) -> str:
        return self


def _escaped(value: Any) -> str:
    return str(value) if hasattr(value, "__html__") else escape(str(value))


@cache
def template(package: str, name: str, compact: bool = False) -> Any:
    """Returns the ``jinja2.Template`` ``templates/<name>`` of ``package`` (every value it writes
    escaped, an undefined name an error); raises ``jinja2.TemplateNotFound``."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    class Loader(PackageLoader):
        def get_source(self, environment: Environment, name: str) -> tuple[str, str, Callable[[], bool] | None]:
            source, path, uptodate = super().get_source(environment, name)
            if compact:
                source = "".join(line.lstrip() for line in source.splitlines())
            return source, path, uptodate

    environment = Environment(loader=Loader(package, "templates"), autoescape=False, finalize=_escaped,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=StrictUndefined)
    return environment.get_template(name)


def render(package: str, name: str, compact: bool = False, **values: Any) -> Markup:
    """Returns ``templates/<name>`` of ``package`` rendered with ``values``."""
    return Markup(template(package, name, compact).render(**values))
