"""`python -m loopspec`: the `loopspec` command line."""

import sys

from loopspec.properties.cli import program

sys.exit(program())
