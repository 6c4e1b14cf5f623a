"""The base of the client's models: Python names over the service's camelCase fields."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Model(BaseModel):
    """A value the service returned: immutable, read by snake_case names; fields the client
    did not ask for (a newer service's) are ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="ignore"
    )


class Input(BaseModel):
    """A value sent to the service: unset (None) fields are left out, so the service's
    defaults apply."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def to_variables(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
