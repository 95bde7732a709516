"""Persistence: the Store interface and its backends (memory, SQLite, PostgreSQL)."""
