"""attn: durable mailboxes and a single-threaded attention loop for LLM agents."""
