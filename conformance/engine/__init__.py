"""The engine: specs in, one runner calling targets in worker processes, invariants, result records and
the report model every command fills (``runner``, ``target``, ``invariants``, ``spec``, ``results``,
``command_report``, ``worker``)."""
