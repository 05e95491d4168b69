"""crosspost: one newsletter issue, published to every channel exactly once."""

__version__ = "0.1.0"
