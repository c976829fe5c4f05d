"""Pieces of the static site (delivery/make_site.py): page template, widgets, alt texts, index, PDF."""
