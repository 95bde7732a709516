"""``python -m attn``: the same as the ``attn`` command."""

from attn.cli.main import app

app(prog_name="attn")
