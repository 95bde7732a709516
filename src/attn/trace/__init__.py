"""attn.trace."""
