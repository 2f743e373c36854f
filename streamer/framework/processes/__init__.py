"""Forked worker processes: the ordered pool behind ``--jobs``."""
