"""Importers: other formats into the canonical issue document."""
