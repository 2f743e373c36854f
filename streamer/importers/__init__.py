"""Transcript importers: other formats in, source documents out."""
