"""``gpulens cache info`` and ``gpulens cache clear``: the Timeline cache (see :mod:`gpulens.cache`)."""

from __future__ import annotations

import typer

from gpulens.cli._coerce import LightGroup


def register(app: typer.Typer) -> None:
    """Add the ``cache`` command group to ``app``."""
    group = typer.Typer(cls=LightGroup, no_args_is_help=True,
                        help="The cache of loaded traces (re-opening a large trace in < 1 s).")

    @group.command("info")
    def info_cmd() -> None:
        """Print the cache folder, its number of entries and their size."""
        from gpulens.cache import info

        i = info()
        print(f"cache folder: {i.folder}\nentries: {i.entries}\nsize: {i.size_bytes / 2**20:.1f} MiB")

    @group.command("clear")
    def clear_cmd() -> None:
        """Delete every cache entry: the cached Timelines and the analysis results and reports kept with them (the
        traces themselves are never touched)."""
        from gpulens.cache import cache_dir, clear

        n = clear()
        print(f"removed {n} cache entr{'y' if n == 1 else 'ies'} from {cache_dir()}")

    app.add_typer(group, name="cache")
