"""Anthropic's server-side context management: the documented edit semantics and the analyzer that
reads a Messages API exchange with them, the emulator and its faults, live probe building,
recording through the ``anthropic`` SDK, the price table and the configuration lint."""
