"""`python -m loopspec`: the `loopspec` command line."""

import sys

from loopspec._console import program

sys.exit(program())
