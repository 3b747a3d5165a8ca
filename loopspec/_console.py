"""Where console scripts installed before the program's first step moved into the `cli` package
start it: an editable install (`pip install -e .`) keeps the script it wrote until reinstalled,
and that script imports `loopspec._console.program`. Nothing else imports this module: the
scripts an install writes now start at `loopspec.properties.cli:program` (pyproject.toml)."""

from loopspec.properties.cli import program

__all__ = ["program"]
