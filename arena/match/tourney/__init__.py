"""Tournaments (docs/house-rules.md §8): levels, the draw, seating and balancing, placings, formats."""
