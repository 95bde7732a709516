"""Hosting agents: the :class:`Runtime`, its :class:`Agent` objects and their config."""

from attn.config import AgentConfig
from attn.runtime.agent import Agent
from attn.runtime.runtime import Runtime

__all__ = ["Agent", "AgentConfig", "Runtime"]
