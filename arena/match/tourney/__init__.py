"""Tournaments (RULES.md §7): levels, the draw, seating and balancing, placings, formats."""
