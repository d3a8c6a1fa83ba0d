"""Command-line interface (placeholder until the parse command lands)."""

import click


@click.group()
def main() -> None:
    """kgbuild: movie screenplays to knowledge graphs."""
