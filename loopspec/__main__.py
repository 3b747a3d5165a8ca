"""`python -m loopspec`: the `loopspec` command line."""

import sys

from loopspec.properties.cli.main import main

sys.exit(main())
