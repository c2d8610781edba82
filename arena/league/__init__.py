"""Leagues: statistics over recorded hands (mbb/hand with confidence intervals), crosstable, rankings."""
