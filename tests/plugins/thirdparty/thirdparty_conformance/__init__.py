"""A third party's extensions of context-conformance: the ``toyllm`` provider and the ``toy-chat``
message format, registered by this distribution's entry points, with no edit to the suite."""
