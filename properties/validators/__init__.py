"""Independent validators of what the model emits for outside readers.

`acp_strict` holds the ACP bridge's wire JSON to the pinned ACP schema (needs the `acp` extra);
`provider_rules` holds derived histories to each provider's call/result pairing rules.
"""
