"""The peer matrix: real libraries' trimmers run under the catalog, one row per setting, published
as Markdown, JSON, HTML and a README block, and checked against the published copy in CI."""

from __future__ import annotations

from .build import (END, START, build, changed_cells, check_against, markdown, peer_row, readme_block,
                    rows_counter, update_readme)
from .command import checkout, register

__all__ = ["END", "START", "build", "changed_cells", "check_against", "markdown", "peer_row",
           "checkout", "readme_block", "register", "rows_counter", "update_readme"]
