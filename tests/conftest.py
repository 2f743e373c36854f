"""Test-suite settings: hypothesis never fails a test for being slow (the machine may be
shared; speed is measured by ``make bench``, not asserted here)."""

from hypothesis import settings

settings.register_profile("streamer", deadline=None, print_blob=True)
settings.load_profile("streamer")
