"""Recording workflows and code patterns, and extracting patterns from code."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.procedures.inputs import (
    RecordPatternInput,
    RecordWorkflowFromEpisodeInput,
    RecordWorkflowInput,
    SourceFileInput,
)
from thoughtgraph.api.graphql.procedures.types import PatternExtraction, Procedure
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.procedures.extraction import (
    MAX_EXTRACT_FILES,
    MAX_FILE_CHARS,
    MAX_TOTAL_CHARS,
)
from thoughtgraph.features.procedures.service import Authoring


async def resolve_record_workflow(info: Info, input: RecordWorkflowInput) -> Procedure:
    recorded = await info.context.services.procedures.record_workflow(
        input.to_authoring(),
        input.trigger,
        [step.to_domain() for step in input.steps],
        hint=input.hint,
        refines=input.refines,
        caller=info.context.principal,
    )
    return Procedure.from_domain(recorded)


async def resolve_record_workflow_from_episode(
    info: Info, input: RecordWorkflowFromEpisodeInput
) -> Procedure:
    recorded = await info.context.services.procedures.record_workflow_from_episode(
        input.to_authoring(),
        input.episode_id,
        trigger=input.trigger,
        hint=input.hint,
        refines=input.refines,
        caller=info.context.principal,
    )
    return Procedure.from_domain(recorded)


async def resolve_record_pattern(info: Info, input: RecordPatternInput) -> Procedure:
    recorded = await info.context.services.procedures.record_pattern(
        input.to_authoring(),
        input.trigger,
        [slot.to_domain() for slot in input.template],
        hint=input.hint,
        files=input.files or (),
        refines=input.refines,
        caller=info.context.principal,
    )
    return Procedure.from_domain(recorded)


async def resolve_extract_patterns(
    info: Info,
    files: list[SourceFileInput],
    agent_id: str,
    agent_name: str,
    namespace: str = DEFAULT_NAMESPACE,
) -> PatternExtraction:
    found = await info.context.services.procedures.extract_patterns(
        Authoring(namespace=namespace, agent_id=agent_id, agent_name=agent_name),
        [file.to_domain() for file in files],
        caller=info.context.principal,
    )
    return PatternExtraction.from_domain(found)


@strawberry.type
class ProcedureMutation:
    record_workflow = strawberry.mutation(
        resolver=resolve_record_workflow,
        description=(
            "Record a workflow (kind WORKFLOW): its steps in order, its trigger and a hint"
            " (derived from the trigger and the steps' heads when null); with `refines`, a"
            " refinement of that workflow. No step, or a refined thought that is no"
            " workflow: VALIDATION_ERROR, nothing written."
        ),
    )
    record_workflow_from_episode = strawberry.mutation(
        resolver=resolve_record_workflow_from_episode,
        description=(
            "Record a workflow the language model reads off an episode: its stable"
            " sequence of actions as numbered imperative steps. Only on this request;"
            " without a model LLM_NOT_CONFIGURED, with no such sequence NO_WORKFLOW_FOUND,"
            " an unknown episode NOT_FOUND: nothing written."
        ),
    )
    record_pattern = strawberry.mutation(
        resolver=resolve_record_pattern,
        description=(
            "Record a code pattern (kind CODE_PATTERN): its trigger, its template, a hint"
            " (derived when null) and the files it was seen in; with `refines`, a"
            " refinement of that pattern. Retire one with `supersede`."
        ),
    )
    extract_patterns = strawberry.mutation(
        resolver=resolve_extract_patterns,
        description=(
            "Find the function shapes repeated across the files (Python, JavaScript and"
            " TypeScript, read by their syntax trees: route, validation, error handling,"
            " response) and store each seen in two places or more as a code pattern; one"
            f" already stored is returned as it is. At most {MAX_EXTRACT_FILES} files of"
            f" {MAX_FILE_CHARS:,} characters, {MAX_TOTAL_CHARS:,} together (INPUT_TOO_LARGE);"
            " a file that does not parse is UNPARSEABLE_CODE, another language"
            " UNSUPPORTED_LANGUAGE: nothing is written."
        ),
    )
