"""awb-trainer: the remote GPU trainer service of Android Agent Workbench (docs/trainer-protocol.md)."""

SERVICE = "awb-trainer"
PROTOCOL_VERSION = "1"
