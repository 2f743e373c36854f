"""Extraction chunks: the streaming chunker shared by ``streamer chunk`` and the chunk map."""
