"""groundls: index a workspace offline and answer questions from it, with citations."""

__version__ = "0.1.0"
