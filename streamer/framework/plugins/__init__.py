"""How streamer finds its artifact kinds, formats, engines and outputs: entry points."""
