"""People: notifications, approvals that park the item and not the loop, and
each agent's main session (000 §12, §13, §20).

Public: :class:`People` (``runtime.people``), :class:`Notifications` with
:class:`NotificationPage`, :class:`Approvals`, :class:`MainSession`, the
notification type registry (:class:`NotificationTypes`,
:class:`NotificationType`) and the protocols of what people needs of the
runtime (:class:`PeopleHost`, :class:`PeopleAgent`). Modules: ``service``
(the facade and ``notify_user``), ``notifications`` (the bell), ``approvals``
(asking, answering, expiry, parking and resuming), ``session`` (main
sessions and their activity lines), ``types`` (the registry), ``checks``
(every argument's rule), ``hosting`` (the protocols).
"""

from attn.people.approvals import RESUME_PRIORITY, Approvals
from attn.people.hosting import PeopleAgent, PeopleHost
from attn.people.notifications import NotificationPage, Notifications
from attn.people.service import People
from attn.people.session import MainSession
from attn.people.types import BUILTIN_NOTIFICATION_TYPES, NotificationType, NotificationTypes

__all__ = [
    "BUILTIN_NOTIFICATION_TYPES",
    "RESUME_PRIORITY",
    "Approvals",
    "MainSession",
    "NotificationPage",
    "NotificationType",
    "NotificationTypes",
    "Notifications",
    "People",
    "PeopleAgent",
    "PeopleHost",
]
