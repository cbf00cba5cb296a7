"""Fairness pages: a hand's seeds and check, and a table's seed pairs (FAIRNESS.md)."""
