"""Fairness pages: a hand's seeds and check, and a table's seed pairs (docs/fairness.md §4)."""
