"""attn.runtime."""
