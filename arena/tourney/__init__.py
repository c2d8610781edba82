"""Tournaments, one room (docs/house-rules.md §8): levels, the draw, seating and balancing,
placings and formats (pure: `event`, `formats`, `levels`, `placings`, `seating`, `simulate`);
their file, store and results (`config`, `store`, `results`); the live run over the dealer
(`runner`) and the commands (`commands`). The tournament web pages are the web room's
(`arena/web/tournament.py`)."""
