"""Independent validators of what the model emits for outside readers.

`acp_strict` holds ACP wire JSON (the bridge's, or a target's presentation) to the ACP schema;
`provider_rules` holds derived histories to each provider's call/result pairing rules.
"""
