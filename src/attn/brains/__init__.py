"""attn.brains."""
