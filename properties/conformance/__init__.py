"""The conformance kit behind `loopspec conform`, `loopspec replay` and the pytest plugin.

A target (`target.ConformanceTarget`) is driven with the same command programs as the model
(`machine`) and each observation is compared (`compare`). Targets are Python loops
(`impl_adapter`, `impl_target`) or processes speaking the JSON-lines driver protocol
(`driver_protocol`, `command_codec`, `process_target`). `profile_check` compares whole runs with a
harness's known divergences erased (see `loopspec.properties.profiles`); `run` drives a whole run,
reports by rule and saves case files; `suite` is what the pytest plugin runs.
"""
