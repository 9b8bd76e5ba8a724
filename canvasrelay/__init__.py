"""canvas: a shared board for coding agents, terminals and files."""

__version__ = "0.1.0"
