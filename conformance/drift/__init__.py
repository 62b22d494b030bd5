"""Drift between two sets of provider recordings: normalise, diff with deepdiff, classify, report."""
