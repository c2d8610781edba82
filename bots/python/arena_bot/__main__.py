"""`python -m arena_bot KIND --server HOST:PORT --token TOKEN`."""

import sys

from arena_bot.cli import main

sys.exit(main())
