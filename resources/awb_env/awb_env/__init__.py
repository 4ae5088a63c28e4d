"""awb_env: Python agents on the Android Agent Workbench's devices, every episode recorded (docs/outside-agents.md).

    import gymnasium as gym
    import awb_env  # registers awb/AndroidTask-v0

    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7)
    obs, info = env.reset()

Faces: :class:`EnvClient` (the protocol itself, docs/env-protocol.md), ``awb/AndroidTask-v0`` (Gymnasium, and its
vector form), ``awb_env.openenv`` (OpenEnv), ``awb_env.trl`` (TRL's GRPOTrainer), ``awb_env.androidworld``
(AndroidWorld's AsyncEnv). Importing the package registers the Gymnasium id and nothing else: torch, TRL and OpenEnv
are imported by the modules that need them.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .client import EnvClient, Pending, ResetResult, Session, StepResult  # noqa: E402
from .errors import (  # noqa: E402
    AwbEnvError,
    ConfigError,
    DeviceBusyError,
    DeviceFailedError,
    DeviceNotFoundError,
    DevicesBusyError,
    EmbeddedServerError,
    EnvRequestError,
    EpisodeEndedError,
    EpisodeNotStartedError,
    GivenParamsError,
    ObservationSpecError,
    ProtocolError,
    ProtocolMismatchError,
    RewardConfigError,
    RewardUnavailableError,
    SeedError,
    ServerGoneError,
    SessionBusyError,
    SessionNotFoundError,
    SplitError,
    UnknownTemplateError,
    WireFormatError,
)
from .server import shared_server  # noqa: E402

ENV_ID = "awb/AndroidTask-v0"


def _register() -> None:
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="awb_env.gym_env:AndroidTaskEnv",
            vector_entry_point="awb_env.vector_env:AndroidTaskVectorEnv",
            # Seeded resets give the same task instance and the same screens (SimDroid runs on a virtual clock).
            nondeterministic=False,
            disable_env_checker=False,
        )


_register()

__all__ = [
    "ENV_ID", "AwbEnvError", "ConfigError", "DeviceBusyError", "DeviceFailedError", "DeviceNotFoundError",
    "DevicesBusyError", "EmbeddedServerError", "EnvClient", "EnvRequestError", "EpisodeEndedError",
    "EpisodeNotStartedError", "GivenParamsError", "ObservationSpecError", "Pending", "ProtocolError",
    "ProtocolMismatchError", "ResetResult", "RewardConfigError", "RewardUnavailableError", "SeedError",
    "ServerGoneError", "Session", "SessionBusyError", "SessionNotFoundError", "SplitError", "StepResult",
    "UnknownTemplateError", "WireFormatError", "shared_server",
]
