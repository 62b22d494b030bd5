"""OpenAI's server-side context management (Responses API): the documented semantics, the judge that
reads an exchange with them, probes, the emulator and its faults, recording through the ``openai``
SDK, the price table and the configuration lint."""
