"""How pytest-xdist hands the tests out to its workers: a file at a time, so that what a file builds
once per process (its module fixtures, its cached runs, the libraries it imports) is built in one
worker, not in each, and the tests of one ``xdist_group`` together, whatever their files. The files
go out in the order collected (``tests/_order.py``: the files of the long tests first)."""

from __future__ import annotations

from xdist.scheduler import LoadGroupScheduling


class FileOrGroupScheduling(LoadGroupScheduling):
    """``--dist loadgroup`` whose ungrouped tests go out by file rather than one by one."""

    def _split_scope(self, nodeid: str) -> str:
        """Returns the unit of work of the test ``nodeid``: its ``xdist_group`` as pytest-xdist reads
        it off the node id (``...::test@group``), else its file."""
        group = LoadGroupScheduling._split_scope(self, nodeid)  # the node id itself when ungrouped
        return group if group != nodeid else nodeid.split("::", 1)[0]
