"""Errors with a documented exit status (``types``) and the content-safe rendering of
names and paths inside their one-line messages (``safe_text``)."""
