"""Triage's model tiers from an ``llm`` agent's options: the judge and the deliberator.

An agent with ``brain = "llm"`` gets tier 1 when its options name a
``classifier_model`` and tier 2 when they name a ``deliberator_model``
(``"same"``: the main model). Both talk to the same provider, base URL and
key variable as the brain. Their client is made on first use, so the key is
read from the environment only when a model is first asked (as for the brain).

Spec: 000 §21 (tiers 1 and 2); issue 12 point 6; acceptance LLM-30, LLM-31.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from attn.brains.llm.classifier import LLMInterruptClassifier
from attn.brains.llm.deliberator import LLMDeliberator
from attn.brains.llm.settings import LLMSettings
from attn.brains.providers.base import ModelClient, ModelEvent, ModelRequest

#: The brain name whose options may configure the model tiers.
LLM_BRAIN = "llm"


class LazyClient:
    """A :class:`ModelClient` made by :func:`~attn.brains.providers.make_client` on first use.

    Args:
        settings: the provider, base URL, key variable and request timeout.
    """

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.provider = settings.provider
        self._client: ModelClient | None = None

    def client(self) -> ModelClient:
        """The real client, made now if not yet (reads the key from the environment).

        Raises:
            InvalidInput: the key's variable is unset, or the SDK is not installed.
        """
        if self._client is None:
            from attn.brains.providers.factory import make_client

            s = self.settings
            self._client = make_client(
                s.provider,  # type: ignore[arg-type]
                base_url=s.base_url,
                api_key_env=s.api_key_env,
                timeout_s=s.request_timeout_s,
            )
        return self._client

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one turn through the real client (see ``ModelClient.stream``)."""
        async for event in self.client().stream(request):
            yield event

    async def aclose(self) -> None:
        """Close the real client, if it was made."""
        if self._client is not None:
            await self._client.aclose()


@dataclass(frozen=True, slots=True)
class ModelTiers:
    """Tier 1 and tier 2 of one agent; None where its options name no model.

    Pass them to ``Runtime.add_agent(classifier=..., deliberator=...)``, then
    :meth:`bind` them to the agent made.
    """

    classifier: LLMInterruptClassifier | None = None
    deliberator: LLMDeliberator | None = None

    def bind(self, agent: Any) -> None:
        """Bind both tiers to ``agent``, a :class:`~attn.brains.llm.host.BrainHost`
        (what ``Runtime.add_agent`` does for a brain with ``bind_agent``; binding
        twice is harmless)."""
        if self.classifier is not None:
            self.classifier.bind_agent(agent)
        if self.deliberator is not None:
            self.deliberator.bind_agent(agent)

    async def aclose(self) -> None:
        """Close the tiers' model client(s)."""
        clients = {id(t.client): t.client for t in (self.classifier, self.deliberator) if t}
        for client in clients.values():
            await client.aclose()


def tiers_from_settings(settings: LLMSettings, client: ModelClient | None = None) -> ModelTiers:
    """The judge and deliberator that ``settings`` ask for.

    Args:
        settings: the ``llm`` brain's settings (``classifier_model``,
            ``deliberator_model`` and their ``*_max_tokens``).
        client: the model client to use; None: a :class:`LazyClient` on the
            settings' provider (shared by both tiers).
    """
    if settings.classifier is None and settings.deliberator is None:
        return ModelTiers()
    shared = client if client is not None else LazyClient(settings)
    classifier = deliberator = None
    if settings.classifier is not None:
        classifier = LLMInterruptClassifier(
            shared, settings.classifier, settings.classifier_max_tokens
        )
    if settings.deliberator is not None:
        deliberator = LLMDeliberator(
            shared,
            settings.deliberator,
            max_tokens=settings.deliberator_max_tokens,
            temperature=settings.temperature,
            system_prompt_text=settings.system_prompt_text,
        )
    return ModelTiers(classifier, deliberator)


def build_tiers(brain: str, options: Mapping[str, object]) -> ModelTiers:
    """The model tiers of an agent entry (``brain`` and its ``options``).

    Returns:
        Empty tiers for any brain but ``llm``.

    Raises:
        OptionError: the ``llm`` options are invalid (as building the brain would say).
    """
    if brain != LLM_BRAIN:
        return ModelTiers()
    return tiers_from_settings(LLMSettings.from_options(options))


__all__ = ["LLM_BRAIN", "LazyClient", "ModelTiers", "build_tiers", "tiers_from_settings"]
