"""Tournaments: sit & go and scheduled multi-table, their structure, seating and prizes."""
