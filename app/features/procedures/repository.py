"""Workflows and code patterns in the store (cypher/procedures): a thought with its
structure kept on the same node, written with its change event in one statement."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from thoughtgraph.domain.models import ThoughtKind, ThoughtRecord, TimeView
from thoughtgraph.domain.procedures import Procedure, ProcedureSpec, TemplateSlot, WorkflowStep
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import thought_create_params, view_params
from thoughtgraph.store.rows import thought_from_row


def spec_params(spec: ProcedureSpec) -> dict[str, Any]:
    """The structure as node properties: steps and template as JSON text (a list property
    cannot hold a missing detail), files as a list."""
    return {
        "procedureTrigger": spec.trigger,
        "procedureHint": spec.hint,
        "procedureSteps": json.dumps([{"text": s.text, "detail": s.detail} for s in spec.steps]),
        "procedureTemplate": json.dumps([[t.slot, t.value] for t in spec.template]),
        "procedureFiles": list(spec.files),
    }


def procedure_from_row(row: Mapping[str, Any]) -> Procedure | None:
    """None for a thought that holds no structure (not a workflow or pattern)."""
    if row.get("procedureTrigger") is None:
        return None
    thought = thought_from_row(row)
    steps = json.loads(row.get("procedureSteps") or "[]")
    template = json.loads(row.get("procedureTemplate") or "[]")
    return Procedure(
        thought=thought,
        spec=ProcedureSpec(
            kind=thought.kind if thought.kind is not ThoughtKind.FACT else ThoughtKind.WORKFLOW,
            trigger=row["procedureTrigger"],
            hint=row.get("procedureHint") or "",
            steps=tuple(WorkflowStep(text=s["text"], detail=s.get("detail")) for s in steps),
            template=tuple(TemplateSlot(slot=slot, value=value) for slot, value in template),
            files=tuple(row.get("procedureFiles") or ()),
        ),
    )


class ProcedureRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def create(
        self, record: ThoughtRecord, spec: ProcedureSpec, *, event_id: str, event_kind: str
    ) -> int | None:
        """The revision it was written at; None when nothing was written (the id exists,
        or the source is missing)."""
        rows = await self._x.write(
            "procedures.create",
            {
                **thought_create_params(record, event_id=event_id, event_kind=event_kind),
                **spec_params(spec),
            },
            namespace=record.thought.namespace,
        )
        return int(rows[0]["revision"]) if rows else None

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Procedure]:
        if not ids:
            return {}
        rows = await self._x.read(
            "procedures.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        found = (procedure_from_row(row) for row in rows)
        return {p.thought.id: p for p in found if p is not None}

    async def newest(
        self,
        namespace: str,
        kind: ThoughtKind,
        view: TimeView,
        *,
        limit: int,
        include_retired: bool,
        categories: Collection[str] | None,
    ) -> list[Procedure]:
        """The newest ``limit`` procedures of ``kind`` the view shows, in one read: not
        refined or consolidated unless ``include_retired`` (superseded ones go by the
        view's ``current_only``), of ``categories`` only (None: any)."""
        rows = await self._x.read(
            "procedures.list",
            {
                "namespace": namespace,
                "kind": kind.value,
                **view_params(view),
                "includeRetired": include_retired,
                "categories": sorted(categories) if categories is not None else None,
                "limit": limit,
            },
            namespace=namespace,
        )
        found = (procedure_from_row(row) for row in rows)
        return [p for p in found if p is not None]
