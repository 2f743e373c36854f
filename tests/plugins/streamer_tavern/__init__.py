"""streamer-tavern: a streamer plugin adding the ``tavern/oaths`` artifact kind (with its
rules), the ``chatlog`` transcript format and the ``lexicon`` engine (``docs/plugins.md``)."""
