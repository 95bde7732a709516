"""attn.server."""
