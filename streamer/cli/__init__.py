"""The command line: a thin typer layer over ``streamer.api``."""
