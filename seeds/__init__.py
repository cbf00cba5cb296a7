"""Data that seeds a fresh database: cities and stake levels (``python -m seeds.load``)."""
