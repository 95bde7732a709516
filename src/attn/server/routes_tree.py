"""Spawn trees over HTTP: roots, children, SendMessage, interrupts, RESULTs, turns.

Mounted by :func:`attn.server.app.create_app` with :func:`tree_router`::

    GET   /api/trees                                 every hosted tree: its slots, how many agents
    POST  /api/trees                                 {agentId, capacity?} -> 201 the root's node
                                                     (200 when it is a root already)
    GET   /api/trees/{treeId}                        the slots and every node, parents first
    PATCH /api/trees/{treeId}                        {capacity} -> the tree
    POST  /api/agents/{agentId}/children             {name, task?, description?, brain?}
                                                     -> 201 {node, delivery}
    POST  /api/agents/{agentId}/mail                 {text, senderId?, idempotencyKey?}
                                                     -> 201 {delivery}; a repeated key -> 200
    POST  /api/agents/{agentId}/interrupt            {reason?} -> {interruptedItemId}
    PUT   /api/agents/{agentId}/plan                 {on} -> {agentId, plan}
    GET   /api/agents/{agentId}/results              RESULTs it received, newest first;
                                                     ?limit= (50, at most 200), ?before= (a seq)
    POST  /api/agents/{agentId}/results/take         {childId?} -> {result}: an explicit fetch
    GET   /api/agents/{agentId}/turns/{mailboxItemId}  one turn, read only: item, session, logs

Starting and stopping a retained agent is the agents' own control route
(``POST /api/agents/{agentId}/control/start|stop``, :mod:`attn.server.routes_control`):
for an agent of a tree it goes through :meth:`attn.tree.Tree.start` (its unread
mail wakes it, A2A-17) and :meth:`~attn.tree.Tree.stop` (stored, so a restart
keeps it stopped). ``DELETE /api/agents/{agentId}`` removes a child with its
whole subtree (:func:`attn.server.tree_views.remove_hosted`).

Every route goes through :class:`attn.tree.Tree` (``runtime.tree``). Errors use
the app's error shape: an agent or tree the path names that is not hosted is
404 ``unknown_agent``; bad input is 422 (``invalid_input``, ``validation_error``);
a taken child name is 409 ``agent_exists``, an idempotency key repeated for
other mail 409 ``idempotency_conflict``; mail a mailbox refuses is 422
``send_refused``. Everything is checked before anything changes, so an error
leaves the trees, their nodes and every mailbox as they were.

Spec: seed 002; acceptance A2A-10..22; issue 14 (trees over REST, WebSocket, CLI).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Response

from attn.brains.from_config import brain_problem
from attn.config import AgentSection
from attn.errors import (
    IdempotencyConflict,
    InvalidInput,
    ItemNotFound,
    UnknownAgent,
    shown,
)
from attn.limits import MAX_ID_CHARS
from attn.models import RESULT_TYPE
from attn.runtime import views
from attn.server import schemas_tree as shapes
from attn.server import tree_views as show
from attn.server.errors import VALIDATION_ERROR, ApiError
from attn.server.llm_endpoints import Endpoint, http_problem
from attn.server.routes_control import OptionalJsonBodyRoute
from attn.server.schemas import AgentIdPath
from attn.server.schemas_channels import created
from attn.server.schemas_views import answers
from attn.store.base import ItemQuery
from attn.tree.mail import check_mail_text

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Largest ``limit`` of ``GET /api/agents/{agentId}/results`` (each RESULT is at most
#: about 33,000 characters), and its default.
MAX_RESULT_PAGE = 200
DEFAULT_RESULT_PAGE = 50
#: How ``attn.tree.mail.send`` answers a repeated idempotency key.
_DUPLICATE = "duplicate"

TreeIdPath = Annotated[
    str, Path(alias="treeId", min_length=1, max_length=64, description="the root agent's id")
]
ItemIdPath = Annotated[str, Path(alias="mailboxItemId", min_length=1, max_length=MAX_ID_CHARS)]


def tree_router(runtime: Runtime, llm_endpoints: Collection[Endpoint] = ()) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.
        llm_endpoints: the model endpoints an ``llm`` child spawned here may use
            (as for ``POST /api/agents``).

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=OptionalJsonBodyRoute, tags=["trees"])
    tree = runtime.tree

    # ------------------------------------------------------------- trees

    @router.get("/api/trees", **answers(shapes.TreeListView))
    async def list_trees() -> dict[str, Any]:
        """Every hosted tree, by root id: its turn slots and how many agents it hosts."""
        roots = sorted(n.id for n in tree.nodes.values() if n.is_root)
        return {"trees": [show.tree_summary(tree, root) for root in roots]}

    made = created(shapes.NodeView, "the agent is a root already (its capacity applied)")

    @router.post("/api/trees", **made)
    async def create_tree(body: shapes.CreateTreeBody, response: Response) -> dict[str, Any]:
        """Make a hosted agent the root (``/root``) of a tree with ``capacity`` turn slots."""
        agent = runtime.get_agent(body.agent_id).name
        known = tree.nodes.get(agent)
        node = await tree.make_root(agent, capacity=body.capacity)
        if known is not None and known.is_root:
            response.status_code = 200
        response.headers["Location"] = f"/api/trees/{quote(agent)}"
        return show.node_view(tree, node)

    @router.get("/api/trees/{treeId}", **answers(shapes.TreeView))
    async def get_tree(tree_id: TreeIdPath) -> dict[str, Any]:
        """One tree: its slots (holders, reserved, waiting) and every hosted node."""
        return show.tree_view(tree, show.root_of(tree, tree_id).id)

    @router.patch("/api/trees/{treeId}", **answers(shapes.TreeView))
    async def patch_tree(tree_id: TreeIdPath, body: shapes.PatchTreeBody) -> dict[str, Any]:
        """Change the tree's turn slots; agents waiting for one are offered the new ones."""
        root = show.root_of(tree, tree_id)
        await tree.make_root(root.id, capacity=body.capacity)
        return show.tree_view(tree, root.id)

    # ----------------------------------------------------------- children

    spawned = created(shapes.SpawnedView)
    spawned["responses"][409] = {"description": "the child's name is taken (agent_exists)"}

    @router.post("/api/agents/{agentId}/children", **spawned)
    async def spawn(
        name: AgentIdPath, body: shapes.SpawnBody, response: Response
    ) -> dict[str, Any]:
        """Spawn a retained child of this agent (a root is made of it when it is in no
        tree); with ``task`` the child gets it as MAIL from its parent and starts."""
        parent = runtime.get_agent(name).name
        spec = _brain_spec(body.brain, parent, llm_endpoints)
        if body.task is not None:  # checked before anything changes; sent once spawned
            check_mail_text(body.task, "task")
        node = await tree.spawn(parent, body.name, brain_spec=spec, description=body.description)
        delivery = None
        if body.task is not None:
            delivery = (await tree.send(parent, node.id, body.task)).to_dict()
        response.headers["Location"] = f"/api/trees/{quote(node.tree_id)}"
        return {"node": show.node_view(tree, node), "delivery": delivery}

    # --------------------------------------------------------------- mail

    repeat = "a repeated idempotencyKey: nothing stored, the first mail's item"

    mailed = created(shapes.MailView, repeat)
    mailed["responses"][409] = {"description": "the key was used for other mail"}

    @router.post("/api/agents/{agentId}/mail", **mailed)
    async def mail(name: AgentIdPath, body: shapes.MailBody, response: Response) -> dict[str, Any]:
        """SendMessage to this agent: it starts an idle agent's turn, joins a running one
        at its next safe boundary, or waits (self-mail, stopped, at capacity: the reason)."""
        target = tree.node(name).id
        delivery = await tree.send(
            body.sender_id, target, body.text, idempotency_key=body.idempotency_key
        )
        if (delivery.reason or "").startswith(_DUPLICATE):
            await _same_mail(runtime, delivery.item_id, body)
            response.status_code = 200
        return {"delivery": delivery.to_dict()}

    @router.post("/api/agents/{agentId}/interrupt", **answers(shapes.InterruptView))
    async def interrupt(
        name: AgentIdPath, body: shapes.InterruptBody | None = None
    ) -> dict[str, Any]:
        """Interrupt the agent: its wake marks are cleared and its turn, if any, ends as
        interrupted (its RESULT carries the reason). The body may be left out."""
        reason = (body or shapes.InterruptBody()).reason
        return {"interruptedItemId": await tree.interrupt(tree.node(name).id, reason)}

    @router.put("/api/agents/{agentId}/plan", **answers(shapes.PlanView))
    async def plan(name: AgentIdPath, body: shapes.PlanBody) -> dict[str, Any]:
        """Put the agent in Plan (read-only) mode or take it out (runtime only)."""
        node = tree.node(name)
        tree.set_plan(node.id, body.on)
        return {"agentId": node.id, "plan": node.id in tree.plan}

    # ------------------------------------------------------------ results

    @router.get("/api/agents/{agentId}/results", **answers(shapes.ResultPageView))
    async def results(
        name: AgentIdPath,
        limit: Annotated[int, Query(ge=1, le=MAX_RESULT_PAGE)] = DEFAULT_RESULT_PAGE,
        before: Annotated[
            int | None,
            Query(ge=1, le=2**63 - 1, description="a seq: only older RESULTs (nextBefore)"),
        ] = None,
    ) -> dict[str, Any]:
        """RESULTs this agent received from its children, read or not, newest first
        (also of a removed tree agent: they stay stored)."""
        agent_id = await _tree_agent(runtime, name)
        query = ItemQuery(agent_id, source_types=(RESULT_TYPE,), limit=limit + 1, before_seq=before)
        found = await runtime.store.find_items(query)
        page = found[:limit]
        more = len(found) > limit and page[-1].seq is not None
        return {
            "results": [show.result_entry(item) for item in page],
            "nextBefore": page[-1].seq if more else None,
        }

    @router.post("/api/agents/{agentId}/results/take", **answers(shapes.TakeView))
    async def take(name: AgentIdPath, body: shapes.TakeBody | None = None) -> dict[str, Any]:
        """Take the oldest unread RESULT (of ``childId``, if given): it is read once, so
        no later wake delivers it (A2A-22). ``result`` is null when there is none."""
        parent = tree.node(name).id
        child = (body or shapes.TakeBody()).child_id
        if child is not None and tree.node(child).parent_id != parent:
            raise InvalidInput(f"{child!r} is not a child of {parent!r}: its RESULTs go elsewhere")
        taken = await tree.results.take(parent, child)
        return {"result": taken.to_dict() if taken is not None else None}

    @router.get("/api/agents/{agentId}/turns/{mailboxItemId}", **answers(shapes.TurnView))
    async def turn(name: AgentIdPath, item_id: ItemIdPath) -> dict[str, Any]:
        """One turn of the agent, read only: the item it worked on with the brain's
        ``session`` (its conversation), its activity and the first 200 log entries
        (more: ``GET /api/agents/{agentId}/activity-logs`` from ``nextCursor``)."""
        item = await runtime.store.get_item(item_id)
        if item is None or item.agent_id != name:
            raise ItemNotFound(f"agent {shown(name)} has no item {shown(item_id)}")
        activities = await runtime.store.find_activities(item.agent_id, [item.id])
        activity = activities[-1] if activities else None
        page: dict[str, Any] = {"logs": [], "nextCursor": None}
        if activity is not None:
            page = await views.activity_log_page(runtime.store, item.agent_id, activity.id)
        return {
            "item": {**item.to_dict(), "session": item.session},
            "activity": activity.to_dict() if activity is not None else None,
            **page,
        }

    return router


def _brain_spec(
    spec: shapes.BrainBody | None, parent: str, llm_endpoints: Collection[Endpoint]
) -> dict[str, Any] | None:
    """The child's own brain as ``{"kind", "options"}``, checked like ``POST /api/agents``
    checks one (422 naming ``body.brain...``), or None for one like its parent's."""
    if spec is None:
        return None
    section = AgentSection(name=parent, brain=spec.kind, options=spec.options)
    problem = http_problem(section.brain, section.options, llm_endpoints)
    problem = problem or brain_problem(section)
    if problem is not None:
        loc, message = problem
        where = ".".join(("body", "brain", *("kind" if p == "brain" else p for p in loc)))
        raise ApiError(422, VALIDATION_ERROR, f"{where}: {message}")
    return {"kind": section.brain, "options": dict(section.options)}


async def _same_mail(runtime: Runtime, item_id: str | None, body: shapes.MailBody) -> None:
    """A repeated idempotency key must repeat the mail: the same sender and text.

    Raises:
        IdempotencyConflict: the key was used for other mail (nothing was stored).
    """
    first = await runtime.store.get_item(item_id) if item_id is not None else None
    if first is None:
        return
    text = (first.content or "").split("\n", 1)[-1]  # after the "[mail from ...]" line
    if first.metadata.get("senderId") != body.sender_id or text != body.text:
        raise IdempotencyConflict(
            f"idempotencyKey {body.idempotency_key!r} was used for other mail to "
            f"{first.agent_id!r} ({first.id}); use a new key for new mail"
        )


async def _tree_agent(runtime: Runtime, name: str) -> str:
    """``name`` when it is (or was) an agent of a tree: hosted, or a stored node.

    Raises:
        UnknownAgent: it never was one.
    """
    node = runtime.tree.nodes.get(name) or await runtime.store.get_tree_agent(name)
    if node is None:
        raise UnknownAgent(f"no agent of a spawn tree is called {shown(name)}")
    return node.id


__all__ = ["DEFAULT_RESULT_PAGE", "MAX_RESULT_PAGE", "tree_router"]
