"""``groundls store``: who may read a served team index, and publishing to it from ``index``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from groundls.cli.common import CliError
from groundls.workspace import (
    StoreUnavailable,
    Workspace,
    describe_store,
    store_access,
    store_connect,
    store_url,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "store", help="who may read a served team index (the indexing role runs these)"
    )
    p.add_argument("--store", metavar="URL", help="the store (default: env GROUNDLS_STORE)")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    grant = actions.add_parser("grant", help="let an existing role read the index, only read it")
    grant.add_argument("role")
    restrict = actions.add_parser(
        "restrict", help="only members of GROUP see the paths matching GLOB"
    )
    restrict.add_argument("glob", help="e.g. 'services/payments/**'")
    restrict.add_argument("group", help="an existing role; its members see those paths")
    unrestrict = actions.add_parser("unrestrict", help="drop the rule of GLOB")
    unrestrict.add_argument("glob")
    actions.add_parser("rules", help="the restricted paths and who sees them")
    p.set_defaults(func=cmd_store)


def cmd_store(args: argparse.Namespace) -> int:
    url = store_url(args.store or "")
    if not url:
        raise CliError("name the store with --store URL or GROUNDLS_STORE")
    try:
        conn = store_connect(url)
        try:
            _act(args, conn)
        finally:
            conn.close()
    except StoreUnavailable as exc:
        raise CliError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the driver's errors, one line (no URL in them)
        raise CliError(f"{describe_store(url)}: {str(exc).strip().splitlines()[0]}") from None
    return 0


def _act(args: argparse.Namespace, conn: Any) -> None:
    if args.action == "grant":
        store_access.grant(conn, args.role)
        print(f"{args.role} may now read the index (and only read it)")
    elif args.action == "restrict":
        files = store_access.restrict(conn, args.glob, args.group)
        print(f"{args.glob}: only members of {args.group} see it ({files} indexed files)")
    elif args.action == "unrestrict":
        gone = store_access.unrestrict(conn, args.glob)
        print(f"{args.glob}: " + ("no longer restricted" if gone else "had no rule"))
    else:
        for pattern, group in store_access.rules(conn):
            print(f"{pattern}\t{group}")


def publish(workspace: Workspace, url: str, quiet: bool) -> Any:
    """Publish the workspace's index to the served store (``groundls index --store``)."""
    if not quiet:
        print(f"publishing to {describe_store(url)}...", file=sys.stderr)
    try:
        return workspace.publish(url)
    except StoreUnavailable as exc:
        raise CliError(str(exc)) from None


def print_published(published: Any, url: str) -> None:
    print(
        f"published to {describe_store(url)}: {published.files} files changed,"
        f" {published.removed} removed, {published.chunks} chunks written"
        + (" (the store was replaced whole)" if published.replaced_all else "")
    )
