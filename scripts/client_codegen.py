"""The generator behind scripts/generate_client.py: the client's modules from a schema."""

from __future__ import annotations

import re
import textwrap

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    Undefined,
    get_named_type,
)

FALLBACK = "more"  # the group of a root field or type no group names
SCALARS = {
    "ID": "str",
    "String": "str",
    "Int": "int",
    "Float": "float",
    "Boolean": "bool",
    "DateTime": "dt.datetime",
    "Date": "dt.date",
}
PYTHON_NAMES = {"from": "from_"}  # field names Python reserves


def snake(name: str) -> str:
    plain = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    return PYTHON_NAMES.get(plain, plain)


def python_type(kind: object, nullable: bool = True) -> str:
    if isinstance(kind, GraphQLNonNull):
        return python_type(kind.of_type, nullable=False)
    if isinstance(kind, GraphQLList):
        inner = f"list[{python_type(kind.of_type)}]"
    elif isinstance(kind, GraphQLScalarType):
        inner = SCALARS[kind.name]
    else:
        inner = kind.name  # type: ignore[attr-defined]
    return f"{inner} | None" if nullable else inner


def docstring(text: str | None, indent: str) -> str:
    if not text:
        return ""
    lines = textwrap.fill(
        " ".join(text.split()), 96 - len(indent), break_long_words=False
    ).splitlines()
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""\n'
    return f'{indent}"""' + ("\n" + indent).join(lines) + f'\n{indent}"""\n'


def string_lines(text: str, indent: str) -> str:
    """``text`` as adjacent string literals of at most ~80 characters, one a line."""
    lines, current = [], ""
    for word in text.split(" "):
        if current and len(current) + len(word) + 1 > 78:
            lines.append(current + " ")
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return "".join(f"{indent}{line!r}\n" for line in lines)


class Generator:
    def __init__(
        self,
        schema: GraphQLSchema,
        operation_modules: dict[str, list[str]],
        model_modules: dict[str, list[str]],
        header: str,
    ) -> None:
        self.schema = schema
        self.header = header
        assert schema.query_type and schema.mutation_type
        self.roots: dict[str, tuple[str, GraphQLField]] = {
            **{name: ("query", f) for name, f in schema.query_type.fields.items()},
            **{name: ("mutation", f) for name, f in schema.mutation_type.fields.items()},
        }
        self.operation_modules = {
            m: [n for n in names if n in self.roots] for m, names in operation_modules.items()
        }
        grouped = {n for names in operation_modules.values() for n in names}
        if extra := [n for n in self.roots if n not in grouped]:
            self.operation_modules[FALLBACK] = extra
        self.operation_modules = {m: names for m, names in self.operation_modules.items() if names}
        self.objects: list[str] = []
        for _kind, field in self.roots.values():
            self._collect(get_named_type(field.type).name)
        self.model_module = {t: m for m, names in model_modules.items() for t in names}
        for name in self.objects:
            self.model_module.setdefault(name, FALLBACK)

    def selected(self, type_name: str) -> list[tuple[str, GraphQLField]]:
        """The fields the client selects: those without arguments, and no thought inside a
        thought (its links are ids; follow them with another call)."""
        kind = self.schema.type_map[type_name]
        assert isinstance(kind, GraphQLObjectType)
        chosen = []
        for name, field in kind.fields.items():
            inner = get_named_type(field.type)
            if field.args or (isinstance(inner, GraphQLObjectType) and inner.name == type_name):
                continue
            chosen.append((name, field))
        return chosen

    def _collect(self, type_name: str) -> None:
        if (
            not isinstance(self.schema.type_map[type_name], GraphQLObjectType)
            or type_name in self.objects
        ):
            return
        self.objects.append(type_name)
        for _name, field in self.selected(type_name):
            self._collect(get_named_type(field.type).name)

    # -- models ----------------------------------------------------------------------------

    def model_files(self) -> dict[str, str]:
        modules: dict[str, list[str]] = {}
        for name in self.objects:
            modules.setdefault(self.model_module[name], []).append(name)
        files = {
            f"models/{m}.py": self.model_file(m, self.ordered(names))
            for m, names in modules.items()
        }
        files["models/enums.py"] = self.enums_file()
        files["models/inputs.py"] = self.inputs_file()
        return files

    def ordered(self, names: list[str]) -> list[str]:
        """Models after the ones they hold (pydantic resolves them as the module runs)."""
        done: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen or name not in names:
                return
            seen.add(name)
            for _field, field in self.selected(name):
                visit(get_named_type(field.type).name)
            done.append(name)

        for name in names:
            visit(name)
        return done

    def imports(self, annotations: list[str], own: str | None) -> tuple[list[str], bool]:
        enums, others, dates = set(), {}, False
        for annotation in annotations:
            for word in re.findall(r"[A-Za-z_.]+", annotation):
                if word.startswith("dt."):
                    dates = True
                kind = self.schema.type_map.get(word)
                if isinstance(kind, GraphQLEnumType):
                    enums.add(word)
                elif isinstance(kind, GraphQLInputObjectType) and own != "inputs":
                    others.setdefault("inputs", set()).add(word)
                elif isinstance(kind, GraphQLObjectType) and self.model_module[word] != own:
                    others.setdefault(self.model_module[word], set()).add(word)
        lines = (
            [f"from thoughtgraph.client.models.enums import {', '.join(sorted(enums))}"]
            if enums
            else []
        )
        lines += [
            f"from thoughtgraph.client.models.{m} import {', '.join(sorted(n))}"
            for m, n in sorted(others.items())
        ]
        return lines, dates

    def model_file(self, module: str, names: list[str]) -> str:
        body, annotations = [], []
        for name in names:
            kind = self.schema.type_map[name]
            body.append(f"\n\nclass {name}(Model):\n{docstring(kind.description, '    ')}")
            for field_name, field in self.selected(name):
                annotation = python_type(field.type)
                annotations.append(annotation)
                python_name = snake(field_name)
                default = " = None" if annotation.endswith("| None") else ""
                if field_name in PYTHON_NAMES:
                    default = f' = Field({"None" if default else "..."}, alias="{field_name}")'
                body.append(
                    f"    {python_name}: {annotation}{default}\n{docstring(field.description, '    ')}"
                )
        imports, dates = self.imports(annotations, module)
        head = [
            f'"""The service\'s {module} types, as the client\'s documents select them."""\n',
            self.header,
            "from __future__ import annotations\n",
        ]
        if dates:
            head.append("import datetime as dt\n")
        if any("Field(" in line for line in body):
            head.append("from pydantic import Field\n")
        head.append(
            "\n".join(["from thoughtgraph.client.models.base import Model", *imports]) + "\n"
        )
        return "\n".join(head) + "".join(body)

    def enums_file(self) -> str:
        parts = [
            '"""The service\'s enums (their values are the GraphQL names)."""\n\n',
            self.header,
            "\nfrom enum import StrEnum\n",
        ]
        for name, kind in sorted(self.schema.type_map.items()):
            if isinstance(kind, GraphQLEnumType) and not name.startswith("__"):
                parts.append(f"\n\nclass {name}(StrEnum):\n{docstring(kind.description, '    ')}")
                parts += [f'    {value} = "{value}"\n' for value in kind.values]
        return "".join(parts)

    def inputs_file(self) -> str:
        body, annotations = [], []
        for name, kind in sorted(self.schema.type_map.items()):
            if not isinstance(kind, GraphQLInputObjectType):
                continue
            body.append(f"\n\nclass {name}(Input):\n{docstring(kind.description, '    ')}")
            for field_name, field in kind.fields.items():
                required = (
                    isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined
                )
                inner = (
                    field.type.of_type
                    if isinstance(field.type, GraphQLNonNull) and not required
                    else field.type
                )
                annotation = python_type(inner)
                annotations.append(annotation)
                default = "" if required else " = None"
                body.append(
                    f"    {snake(field_name)}: {annotation}{default}\n{docstring(field.description, '    ')}"
                )
        imports, dates = self.imports(annotations, "inputs")
        head = [
            '"""The service\'s input types: unset (None) fields take the service\'s defaults."""\n',
            self.header,
            "from __future__ import annotations\n",
        ]
        if dates:
            head.append("import datetime as dt\n")
        head.append(
            "\n".join(["from thoughtgraph.client.models.base import Input", *imports]) + "\n"
        )
        return "\n".join(head) + "".join(body)

    def fragments_file(self) -> str:
        entries = []
        for name in sorted(self.objects):
            parts = []
            for field_name, field in self.selected(name):
                inner = get_named_type(field.type)
                parts.append(
                    field_name
                    + (
                        f" {{ ...{inner.name}Fields }}"
                        if isinstance(inner, GraphQLObjectType)
                        else ""
                    )
                )
            text = f"fragment {name}Fields on {name} {{ {' '.join(parts)} }}"
            entries.append(f'    "{name}Fields": (\n{string_lines(text, "        ")}    ),\n')
        return (
            '"""Selection sets: one fragment a type, every field its model holds (operations/compose.py\nappends those an operation spreads)."""\n\n'
            + self.header
            + "\nFRAGMENTS: dict[str, str] = {\n"
            + "".join(entries)
            + "}\n"
        )

    def operation_file(self, module: str) -> str:
        constants, sync, aio, annotations = [], [], [], []
        for root in self.operation_modules[module]:
            kind, field = self.roots[root]
            result = python_type(field.type)
            annotations.append(result)
            declared, passed, required, optional, variables = [], [], [], [], []
            for name, argument in field.args.items():
                needed = (
                    isinstance(argument.type, GraphQLNonNull)
                    and argument.default_value is Undefined
                )
                # An argument with a default takes a nullable variable: left out, it applies.
                variable_type = (
                    argument.type
                    if needed or not isinstance(argument.type, GraphQLNonNull)
                    else argument.type.of_type
                )
                declared.append(f"${name}: {variable_type}")
                passed.append(f"{name}: ${name}")
                annotation = python_type(argument.type)
                annotations.append(annotation)
                if needed:
                    required.append(f"{snake(name)}: {annotation}")
                else:
                    nullable = (
                        annotation if annotation.endswith("| None") else f"{annotation} | None"
                    )
                    optional.append(f"{snake(name)}: {nullable} = None")
                variables.append(f'"{name}": {snake(name)}')
            constant = snake(root).upper()
            inner = get_named_type(field.type)
            selection = (
                f" {{ ...{inner.name}Fields }}" if isinstance(inner, GraphQLObjectType) else ""
            )
            head = f"{kind} {root[0].upper()}{root[1:]}" + (
                f"({', '.join(declared)})" if declared else ""
            )
            call = root + (f"({', '.join(passed)})" if passed else "")
            text = f"{head} {{ {call}{selection} }}"
            constants.append(
                f'{constant} = Operation[{result}](\n    "{root}",\n    {result},\n    document(\n{string_lines(text, "        ")}    ),\n)\n'
            )
            signature = ", ".join(["self", *required, *(["*", *optional] if optional else [])])
            mapping = "{" + ", ".join(variables) + "}"
            doc = docstring(field.description, "        ")
            sync.append(
                f"    def {snake(root)}({signature}) -> {result}:\n{doc}        return self._run({constant}, {mapping})\n\n"
            )
            aio.append(
                f"    async def {snake(root)}({signature}) -> {result}:\n{doc}        return await self._run({constant}, {mapping})\n\n"
            )
        imports, dates = self.imports(annotations, None)
        title = module.capitalize()
        summary = (
            f"{title}: the service's {', '.join(self.operation_modules[module])}; sync and async."
        )
        head = [docstring(summary, ""), self.header, "from __future__ import annotations\n"]
        if dates:
            head.append("import datetime as dt\n")
        head.append(
            "\n".join(
                [
                    "from thoughtgraph.client.core import AsyncRunner, Operation, SyncRunner",
                    *imports,
                    "from thoughtgraph.client.operations.compose import document",
                ]
            )
            + "\n"
        )
        return (
            "\n".join(head)
            + "\n"
            + "\n".join(constants)
            + f"\n\nclass {title}Operations(SyncRunner):\n"
            + "".join(sync).rstrip()
            + "\n\n\n"
            + f"class Async{title}Operations(AsyncRunner):\n"
            + "".join(aio).rstrip()
            + "\n"
        )

    def files(self) -> dict[str, str]:
        files = self.model_files()
        files["operations/fragments.py"] = self.fragments_file()
        for module in self.operation_modules:
            files[f"operations/{module}.py"] = self.operation_file(module)
        return files
