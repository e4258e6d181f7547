"""`clean`: remove the scenario containers runners left behind (kill -9, crash, reboot).

Runs that start containers already do this for dead runners on this host before their first
container; `clean` does it on demand, lists every container it finds and, with `--all`, also
removes those of runners that still run (after confirmation).
"""

from __future__ import annotations

import sys

import typer
from rich.text import Text

from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly, print_error
from gaia2_runner.cli.options import EngineOption
from gaia2_runner.config.values import parse_hosts
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.exit_codes import EXIT_NO_VERDICT, EXIT_OK
from gaia2_runner.sandbox.engine_select import requested_engine
from gaia2_runner.sandbox.leftovers import Leftover, remove_containers, runner_containers
from gaia2_runner.sandbox.ownership import ALIVE, DEAD, OTHER_BOOT, OTHER_HOST, OTHER_NAMESPACE, UNKNOWN
from gaia2_runner.sandbox.sandbox import Sandbox

WHY = {
    DEAD: "runner gone",
    ALIVE: "runner alive",
    OTHER_HOST: "runner on another host",
    OTHER_BOOT: "runner of an earlier boot, or of another machine with this name",
    OTHER_NAMESPACE: "runner in another pid namespace (a container?), cannot be checked from here",
    UNKNOWN: "owner cannot be checked (labels missing or /proc unreadable)",
}


def describe(item: Leftover, action: str) -> str:
    """One line per container: what happens to it and why."""
    owner = item.owner
    who = f"{owner.host} pid {owner.pid}" if owner else "no owner labels"
    why = WHY[item.owner_state]
    where = f" -> {item.output_dir}" if item.output_dir else ""
    return f"{action:<14} {item.name}  {item.scenario_id or '-'}  {item.state}  ({why}: {who}){where}"


@friendly
def clean_cmd(
    all_: bool = typer.Option(
        False,
        "--all",
        help="Also remove containers of runners that still run "
        "(or whose owner cannot be checked); asks first unless --yes.",
    ),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Do not ask before removing containers of live runners."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only list what would be removed."),
    host: list[str] = typer.Option(
        [],
        "--host",
        help="Engine API URL to clean, as in [run] hosts (repeatable; "
        "default: this machine's, or CONTAINER_HOST/DOCKER_HOST).",
    ),
    engine: EngineOption = None,
) -> None:
    """Remove scenario containers left behind by runners that are gone (killed, crashed, rebooted).

    Without --all only containers whose runner is provably gone are removed: the owner labels name
    the runner's host, boot, pid namespace, pid and process start time, and all but the pid must
    match this process's (a runner of this machine is checked here, even for containers it
    started on another --host). Exit code 1 when some removal failed.
    """
    urls: list[str | None] = [spec.url for spec in parse_hosts(host, 1)] or [None]
    # --engine, else GAIA2_ENGINE, else auto, resolved once: a bad value is one error, not one per host
    engine, source = requested_engine(engine)
    failed = False
    for url in urls:
        if len(urls) > 1:
            out.print(Text(f"{url}:", style="bold"))
        try:
            failed = _clean_host(url, engine, source, all_=all_, yes=yes, dry_run=dry_run) or failed
        except Gaia2Error as exc:
            if len(urls) == 1:
                raise
            print_error(f"{url}: {exc.message}")  # the next host still
            failed = True
    raise typer.Exit(EXIT_NO_VERDICT if failed else EXIT_OK)


def _clean_host(url: str | None, engine: str, source: str, *, all_: bool, yes: bool, dry_run: bool) -> bool:
    """List and (unless dry_run) remove one host's containers; whether a removal failed."""
    with Sandbox.connect(url, engine=engine, where=source or None) as sandbox:
        items = runner_containers(sandbox.driver)
        chosen = [item for item in items if all_ or item.orphaned]
        kept = [item for item in items if item not in chosen]
        verb = "would remove" if dry_run else "remove"
        for item in chosen:
            out.print(Text(describe(item, verb)), soft_wrap=True)
        for item in kept:
            out.print(Text(describe(item, "keep")), soft_wrap=True)
        if kept:
            err.print(
                Text(
                    f"{len(kept)} kept: their runner still runs or cannot be checked from here; "
                    "--all removes them too",
                    style="dim",
                )
            )
        if dry_run or not chosen:
            out.print(f"{len(chosen)} container(s) {'would be removed' if dry_run else 'to remove'}")
            return False
        if not _confirm([item for item in chosen if not item.orphaned], yes):
            return True
        removed, errors = remove_containers(sandbox.driver, chosen)
    for message in errors:
        print_error(f"cannot remove {message}")
    out.print(f"removed {len(removed)} container(s)")
    return bool(errors)


def _confirm(live: list[Leftover], yes: bool) -> bool:
    """Containers of live runners go only with --yes or a yes on a terminal."""
    if not live or yes:
        return True
    question = f"{len(live)} of these belong to runners that may still run: remove them anyway?"
    if not sys.stdin.isatty():
        raise Gaia2Error(f"{question} Add --yes to confirm (stdin is not a terminal)")
    if not typer.confirm(question, default=False):
        err.print("nothing removed")
        return False
    return True
