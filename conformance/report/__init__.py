"""Renderers of a run: one module per format, each plain data in, text out."""
