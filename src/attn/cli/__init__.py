"""The ``attn`` command: serve, talk to a running server, manage the database, traces.

An entry point at the top of the layers (sync code lives only here). The one
public name is :data:`app`, the Typer application behind the ``attn`` script
and ``python -m attn``; ``attn.cli.main`` defines it and each other module
adds one group of commands (``commands``, ``control``, ``time``, ``db``,
``config_cmd``, ``trace``, ``tail``, ``chat``, ``channel``) or a helper (``client``, ``output``).
"""

from attn.cli.main import app

__all__ = ["app"]
