"""Packages installed for a test only (put on ``sys.path``): extensions this project does not ship."""
