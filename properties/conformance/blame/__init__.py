"""Naming the rule a target broke where its observation differs from the model's.

`classify` (blame/classify.py) holds the target's own log to the invariants (own_log), finds
the first differing event (difference), sorts it by kind and hands it to the module of that
kind (changed_events, missing_events, extra_events, arguments, results, execution, refusals);
those read the model's history through the small shared readers below them (history,
situation, readings, result_words, hooks_*, hook_answers, contexts, messages, endings, probes).
docs/development.md says which import which: only down that order.
"""
