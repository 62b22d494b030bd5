"""Compactors used to prove the suite: deliberately broken ones and legitimately different correct ones."""
