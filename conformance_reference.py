"""In a checkout, the reference compactor under the name it is installed by: the package in
``reference/``. (An installed copy is the ``conformance_reference`` package itself, mapped from
``reference/`` by pyproject's ``sources``; this file is not shipped.)"""

from pathlib import Path

__path__ = [str(Path(__file__).resolve().parent / "reference")]  # a package whose modules are reference/*.py
__package__ = __name__
if __spec__ is not None:
    __spec__.submodule_search_locations = __path__
_init = Path(__path__[0]) / "__init__.py"
exec(compile(_init.read_text(encoding="utf-8"), str(_init), "exec"))  # noqa: S102 - the package's own __init__
