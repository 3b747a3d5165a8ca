"""The `loopspec` command line: one module per verb, each exposing `register(subparsers)`.

`main` builds the parser and maps errors to exit codes. Verbs import their machinery only when
they run, so `loopspec --help` answers at interpreter speed. `scenario` and `demo_scenario` are
the scripted sessions `run` and `demo` play.
"""
