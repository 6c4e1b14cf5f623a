"""`thoughtgraph keys create|list|revoke`: API keys in the key file (thoughtgraph.api.keyfile)."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.access import ALL_NAMESPACES, Role
from thoughtgraph.settings import Settings


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="keys_command", required=True)
    create = actions.add_parser("create", help="create a key; its text is shown once")
    create.add_argument("--name", required=True, help="what the key is for")
    create.add_argument(
        "--namespace",
        action="append",
        required=True,
        help=f"a namespace the key may use (repeat for more; {ALL_NAMESPACES!r} for all)",
    )
    create.add_argument("--agent-id", required=True, help="the agent its writes are by")
    create.add_argument("--agent-name", help="that agent's display name (default: its id)")
    create.add_argument(
        "--agent",
        help="the agent of the allowlist file (TG_ALLOWLIST_FILE) whose categories bind the "
        "key's reads (default: none, reads unrestricted)",
    )
    create.add_argument(
        "--user",
        help="the user the key acts for: it reads that user's private thoughts and writes "
        "private ones as theirs (default: none, shared and system thoughts only)",
    )
    create.add_argument("--role", choices=[role.value for role in Role], default=Role.WRITER.value)
    actions.add_parser("list", help="every key, without secrets")
    revoke = actions.add_parser("revoke", help="revoke a key at once")
    revoke.add_argument("key_id")


def run(settings: Settings, args: argparse.Namespace) -> int:
    keys = KeyFile(settings.key_file_path)
    if args.keys_command == "create":
        namespaces = [
            ns if ns == ALL_NAMESPACES else check.require_namespace(ns) for ns in args.namespace
        ]
        agent_id = check.require_identifier("--agent-id", args.agent_id)
        key, text = keys.create(
            name=check.require_name("--name", args.name),
            namespaces=namespaces,
            agent_id=agent_id,
            agent_name=check.require_name("--agent-name", args.agent_name or agent_id),
            role=Role(args.role),
            agent=check.require_name("--agent", args.agent) if args.agent else None,
            user=check.require_identifier("--user", args.user) if args.user else None,
        )
        print(f"created key {key.key_id} ({key.role.value}) for {', '.join(key.namespaces)}")
        print("its text, shown this once (send it as `Authorization: Bearer <key>`):")
        print(text)
        return 0
    if args.keys_command == "list":
        for key in keys.all_keys():
            print(json.dumps(_public(key.model_dump(mode="json"))))
        return 0
    revoked = keys.revoke(args.key_id)
    print(f"revoked key {revoked.key_id}")
    return 0


def _public(data: dict[str, object]) -> dict[str, object]:
    shown = {k: v for k, v in data.items() if k != "secret_sha256"}
    for field in ("created_at_ms", "revoked_at_ms"):
        value = shown.pop(field)
        moment = (
            datetime.fromtimestamp(value / 1000, UTC).isoformat()
            if isinstance(value, int)
            else None
        )
        shown[field.removesuffix("_ms")] = moment
    return shown
