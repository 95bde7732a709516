"""The people service (``runtime.people``): notifications, approvals, main sessions.

One entry point for every surface (Python API, brain tools, REST, CLI, web
UI): :class:`People` holds the people of ``attn.toml`` (:class:`Users`),
the notification type registry, the bell (:attr:`People.notifications`),
the approvals (:attr:`People.approvals`) and the agents' main sessions
(:attr:`People.sessions`). The runtime attaches each hosted agent, which
installs the end hook that writes the agent's main-session lines and
follows its parked items.

Spec: 000 §12, §13, §20, §25.1; acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from attn.clock import Clock
from attn.config.people import Users, WebhookConfig
from attn.core.attention import Ended
from attn.core.events import EventBus
from attn.errors import InvalidInput, UnknownAgent, shown
from attn.models.people import MAIN_SESSION, Approval, Notification, SessionRole
from attn.people import checks
from attn.people.approvals import Approvals
from attn.people.hosting import PeopleAgent, PeopleHost
from attn.people.notifications import Notifications
from attn.people.session import MainSession
from attn.people.types import NotificationTypes
from attn.people.waiting import wait_for_answer
from attn.people.webhook import WebhookSink
from attn.store.base import InsertNotification, InsertSessionMessage, Store, WriteOp
from attn.types import JSON


class People:
    """Notifications, approvals and main sessions of one runtime.

    Args:
        store, clock, bus: the runtime's.
        host: the runtime (its hosted agents).
        users: the people; None: the one owner ``user``.
        types: the notification types; None: the built-in ones.
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        bus: EventBus,
        host: PeopleHost,
        *,
        users: Users | None = None,
        types: NotificationTypes | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        self._host = host
        self.types = types if types is not None else NotificationTypes()
        self.notifications = Notifications(store, clock, bus, users or Users(), self.types)
        self.sessions = MainSession(store, clock, bus)
        self.approvals = Approvals(
            store, clock, bus, host, self.notifications, self.sessions.last_person
        )
        self._attached: set[str] = set()
        #: The notification webhook (PPL-09), once :meth:`start_webhook` ran.
        self.webhook: WebhookSink | None = None

    @property
    def users(self) -> Users:
        return self.notifications.users

    def set_users(self, users: Users) -> None:
        """Use these people from now on (``attn serve`` passes ``attn.toml``'s)."""
        self.notifications.users = users

    async def wait_for_answer(self, approval_id: str, timeout_s: float) -> Approval:
        """The approval once a person answered it (or it was cancelled or expired), or
        as it is after ``timeout_s`` seconds; woken by its ``approval:answered`` event,
        never by polling (:func:`attn.people.waiting.wait_for_answer`).

        Raises:
            ApprovalNotFound: no approval has that id.
        """
        return await wait_for_answer(self.approvals, self._bus, approval_id, timeout_s)

    # ------------------------------------------------------------ notify_user

    async def notify_user(
        self,
        agent_id: str,
        title: object,
        body: object = "",
        *,
        priority: object = None,
        related_task_id: object = None,
        related_requirement_id: object = None,
        target_user_id: object = None,
    ) -> Notification:
        """Tell a person something and put it in the agent's main session (000 §13.1).

        Stores, in one transaction, an ``agent_report`` notification (action
        ``navigate`` to the task with a related task, else ``open_chat`` to the
        agent's main session) and an assistant message in the main session
        carrying ``<!-- notify_context: task_id=…, requirement_id=… -->``, so
        the agent knows what it said when the person replies.

        Args:
            agent_id: the agent speaking.
            title, body: one line (1..200 characters); the message (≤ 20,000).
            priority: ``low``, ``normal`` (default), ``high`` or ``urgent``.
            related_task_id, related_requirement_id: what it is about.
            target_user_id: who it is for; None: the last person who chatted
                with the agent, else the owner (000 §25.1).

        Returns:
            The stored notification.

        Raises:
            UnknownAgent: no hosted agent has that name. InvalidInput, UnknownUser:
                nothing is stored. StoreError.
        """
        agent = self._host.find_agent(agent_id) if isinstance(agent_id, str) else None
        if agent is None:
            raise UnknownAgent(f"unknown agent {shown(agent_id)}: no hosted agent has that name")
        users = self.users
        if target_user_id is None:
            await self.sessions.remember_people(agent_id)
            remembered = self.sessions.last_person.get(agent_id)
            person = remembered if users.get(remembered) is not None else users.owner.id
        else:
            person = checks.user(users, target_user_id, "target user")
        task = checks.ref(related_task_id, "related_task_id")
        requirement = checks.ref(related_requirement_id, "related_requirement_id")
        if task is not None:
            action, target = "navigate", {"path": f"/work?task={task}"}
        else:
            action, target = "open_chat", {"agentId": agent_id, "sessionId": MAIN_SESSION}
        meta: JSON = {"agentId": agent_id, "notifyUser": True}
        if task is not None:
            meta["taskId"] = task
        if requirement is not None:
            meta["requirementId"] = requirement
        notification = self.notifications.build(
            person,
            "agent_report",
            title,
            body,
            priority=priority,
            action_type=action,
            action_target=target,
            metadata=meta,
        )
        content = f"**{notification.title}**\n\n{notification.body}".rstrip()
        refs = [f"task_id={task}"] if task else []
        refs += [f"requirement_id={requirement}"] if requirement else []
        if refs:
            content += f"\n\n<!-- notify_context: {', '.join(refs)} -->"
        message = self.sessions.message(
            agent_id,
            SessionRole.ASSISTANT,
            content,
            {
                **meta,
                "priority": str(notification.priority),
                "notificationId": notification.id,
                "userId": person,
            },
        )
        focus = agent.focus_item
        earlier = self.sessions.chat_lines(agent_id, focus) if focus is not None else []
        ops: list[WriteOp] = [InsertSessionMessage(m) for m in [*earlier, message]]
        try:
            await self._store.write([InsertNotification(notification), *ops])
        except BaseException:
            self.sessions.logged.difference_update(m.metadata["mailboxItemId"] for m in earlier)
            raise
        for line in (*earlier, message):
            self.sessions.published(line)
        self.notifications.published(notification)
        return notification

    # ------------------------------------------------------------- agents

    async def attach(self, agent: PeopleAgent) -> None:
        """Follow a newly hosted agent (before its loop starts): its main-session
        lines, its parked items, and what a crash left between a request and
        its park (PPL-04)."""
        name = agent.name
        if name in self._attached:
            return
        session_hook = self.sessions.end_hook(name)
        approvals = self.approvals

        def hook(ended: Ended) -> Sequence[WriteOp]:
            ended.after.append(lambda: approvals.on_end(agent, ended))
            return session_hook(ended)

        agent.add_end_hook(hook)
        agent.mailbox.transitions.on_parked_dropped = approvals.on_parked_dropped
        await self.sessions.remember_logged(name, agent.mailbox.parked_items())
        await approvals.attach(agent)
        self._attached.add(name)

    def detach(self, agent_id: str) -> None:
        """Stop following an agent that is no longer hosted."""
        self._attached.discard(agent_id)
        self.approvals.detach(agent_id)

    async def settle(self) -> None:
        """Wait for the background work started so far (resumes, cancels)."""
        await self.approvals.settle()

    async def start_webhook(
        self, config: WebhookConfig, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> WebhookSink:
        """Push notifications to ``config.url`` from now on, and what a previous run
        left pending (PPL-09). ``transport``: an httpx transport (tests).

        Raises:
            InvalidInput: a webhook runs already, or its secret variable is not set.
        """
        if self.webhook is not None:
            raise InvalidInput("a notification webhook runs already")
        sink = WebhookSink(self._store, self._clock, config, transport=transport)
        self.notifications.webhook_types = config.types
        self.notifications.listeners.append(sink.kick)
        self.webhook = sink
        await sink.start()
        return sink

    async def aclose(self) -> None:
        """Stop timers, background work and the webhook."""
        self.approvals.close()
        if self.webhook is not None:
            await self.webhook.close()


__all__ = ["People"]
