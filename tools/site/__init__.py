"""Pieces of the static site (tools/make_site.py): page template, widgets, alt texts, index, PDF."""
