"""The exit status the API gives a run that finished incomplete (a lane or a session
failed), kept apart so that the CLI can name it without importing the commands."""

INCOMPLETE_EXIT_STATUS = 4
