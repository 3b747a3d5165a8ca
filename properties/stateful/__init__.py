"""Hypothesis state machines and strategies: random command programs for the model and impl.

`strategies` draws commands and configurations; `model_machine` checks every invariant of the
model after every step; `impl_machine` drives the bundled implementation beside the model;
`state_checks` are what only a model state (not its log) can show.
"""
