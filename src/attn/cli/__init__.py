"""attn.cli."""
