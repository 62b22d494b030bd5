"""Compactors a team writes on top of the reference or of a fixed window, played through the
agent loop: four pass every one-call check and break the provider's prefix check of replayed
thinking on current Claude models; ``boundary_tasks`` changes settled history only at task
boundaries and strips the reasoning it keeps, and passes everywhere.

Try one: ``conformance run --target examples.preserved_thinking.window_of_tasks:compact``.
"""
