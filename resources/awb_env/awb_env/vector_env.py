"""N sessions as one Gymnasium vector environment, over ONE connection: each ``step`` sends the N requests at once
and collects the N responses as they come (the server runs the sessions side by side).

    envs = gym.make_vec("awb/AndroidTask-v0", num_envs=8, task="ContactsAddContact", seed=0)
    obs, infos = envs.reset()
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions: a tuple of 8

Gymnasium's vector semantics (gymnasium 1.x): autoreset ``"NextStep"`` by default — the step after a sub-environment
ends resets it, ignoring its action and returning its first observation with reward 0 and both flags False;
``"SameStep"`` resets it in the step that ended it (the last observation and info in ``infos["final_obs"]`` /
``infos["final_info"]``); ``"Disabled"`` leaves resets to ``reset(options={"reset_mask": …})``.

Seeds: sub-environment ``i`` plays the template's seeds ``s + i, s + i + N, s + i + 2N, …`` from ``seed=s`` (the
constructor's, or ``reset(seed=s)``), so no two sessions play the same instance; ``reset(seed=[…])`` picks each.

On a Ray cluster (docs/ray.md): ``ray_address="auto"`` (or HOST:PORT, ray://HOST:PORT) starts environment servers as
Ray actors across the cluster's nodes (awb_ray, one CPU per SimDroid, ``ray_envs_per_actor`` sessions per server) and
puts the sessions on them, one connection per server; ``close()`` stops them. Episodes are recorded in each server's
own store on its node.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from .client import Connection, EnvClient, Pending, ResetResult, Session, StepResult
from .config import EnvConfig
from .gym_env import app_names


class AndroidTaskVectorEnv(VectorEnv):
    """``num_envs`` sessions of the same task configuration (AndroidTaskEnv's keyword arguments)."""

    def __init__(self, num_envs: int, *, server: str | None = None, render_mode: str | None = None,
                 autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP, ray_address: str | None = None,
                 ray_envs_per_actor: int = 1, **kwargs: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: expected a positive integer")
        if ray_address is not None and server is not None:
            raise ValueError(f"server={server!r} and ray_address={ray_address!r}: one or the other")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode={render_mode!r}: expected None or 'rgb_array'")
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": 4, "autoreset_mode": self.autoreset_mode}
        self.config = EnvConfig.from_kwargs(frames=render_mode == "rgb_array", **kwargs)
        base = self.config.task.get("seed", 0)
        self._next_seed = [base + i for i in range(num_envs)]
        self._closed = False
        # One connection to the given (or embedded) server; on Ray, one per actor's server, each holding as many
        # sessions as it has SimDroids.
        self._ray = None
        self._connections: list[Connection] = []
        owner: list[int]
        try:
            if ray_address is None:
                self._connections.append(Connection(server))
                owner = [0] * num_envs
            else:
                from awb_ray import env_servers  # Ray is only needed on this path

                self._ray = env_servers(ray_address, num_envs, envs_per_actor=ray_envs_per_actor)
                self._connections.extend(Connection(s.url) for s in self._ray.servers)
                owner = [k for k, s in enumerate(self._ray.servers) for _ in range(s.devices)]
            self.client: EnvClient = self._connections[0].client
            created = [self._connections[owner[i]].client.send_create(self.config.task, **self.config.create_fields())
                       for i in range(num_envs)]
            self.sessions: list[Session] = [p.result() for p in created]
        except BaseException:
            self._let_go()  # each server closes the sessions it made for its connection
            raise
        device = self.sessions[0].device
        self.single_observation_space = self.config.observation_space(device)
        self.single_action_space = self.config.action_space_for(device, app_names(self.client))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._last_obs: list[dict[str, Any] | None] = [None] * num_envs
        self._frames: list[np.ndarray | None] = [None] * num_envs

    # --- the vector API ---

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed if isinstance(seed, int) else None)
        options = dict(options or {})
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset(seed=…) got {len(seeds)} seeds for num_envs={self.num_envs}")
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        elif not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (self.num_envs,)):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got {mask!r}")
        task = options.get("task")
        if isinstance(task, str):
            task = {"template": task}
        pending = {i: self._send_reset(i, seeds[i], task) for i in range(self.num_envs) if mask[i]}
        infos: dict[str, Any] = {}
        for i, p in pending.items():
            r: ResetResult = p.result()
            self._remember(i, r.observation)
            infos = self._add_info(infos, self._reset_info(i, r), i)
            self._autoreset[i] = False
        return self._batch(), infos

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = list(iterate(self.action_space, actions))
        if len(actions) != self.num_envs:
            raise ValueError(f"step() got {len(actions)} actions for num_envs={self.num_envs}")
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        truncations = np.zeros(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {}
        # Send all, then collect: the sessions run side by side on the server.
        pending: list[tuple[str, Pending]] = []
        for i, action in enumerate(actions):
            if self.autoreset_mode == AutoresetMode.NEXT_STEP and self._autoreset[i]:
                pending.append(("reset", self._send_reset(i, None, None)))
            else:
                pending.append(("step", self.sessions[i].send_step(**self.config.action_fields(action))))
        ended: list[int] = []
        for i, (kind, p) in enumerate(pending):
            if kind == "reset":
                r0: ResetResult = p.result()
                self._remember(i, r0.observation)
                infos = self._add_info(infos, self._reset_info(i, r0), i)
                continue
            r: StepResult = p.result()
            info = self.config.gym_info(r.info)
            if r.observation is None:
                info["observation_missing"] = True
            else:
                self._remember(i, r.observation)
            rewards[i], terminations[i], truncations[i] = r.reward, r.terminated, r.truncated
            if r.done and self.autoreset_mode == AutoresetMode.SAME_STEP:
                ended.append(i)
                infos = self._add_info(infos, {"final_obs": dict(self._last_obs[i] or {}), "final_info": info}, i)
            else:
                infos = self._add_info(infos, info, i)
        if ended:
            again = {i: self._send_reset(i, None, None) for i in ended}
            for i, p in again.items():
                r1: ResetResult = p.result()
                self._remember(i, r1.observation)
                infos = self._add_info(infos, self._reset_info(i, r1), i)
        self._autoreset = np.logical_or(terminations, truncations)
        return self._batch(), rewards, terminations, truncations, infos

    def render(self) -> tuple[np.ndarray | None, ...] | None:  # type: ignore[override]
        if self.render_mode != "rgb_array":
            return None
        return tuple(None if f is None else f.copy() for f in self._frames)

    def close_extras(self, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._close_sessions()
        finally:
            self._let_go()

    def _let_go(self) -> None:
        """Closes the connections, then stops the Ray actors' servers if this environment started them."""
        try:
            for c in self._connections:
                c.close()
        finally:
            if self._ray is not None:
                self._ray.close()

    # --- helpers ---

    def _send_reset(self, i: int, seed: int | None, task: dict[str, Any] | None) -> Pending:
        if seed is None:
            seed = self._next_seed[i]
        self._next_seed[i] = seed + self.num_envs
        return self.sessions[i].send_reset(seed, task)

    def _reset_info(self, i: int, r: ResetResult) -> dict[str, Any]:
        info = dict(r.info)
        info.update(step=0, session=self.sessions[i].id)
        return self.config.gym_info(info)

    def _remember(self, i: int, o: dict[str, Any]) -> None:
        if self.config.frames:
            self._frames[i] = o.get("screenshot")  # type: ignore[assignment]
        self._last_obs[i] = self.config.gym_observation(o)

    def _batch(self) -> dict[str, Any]:
        out = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)
        items = [o if o is not None else self._empty() for o in self._last_obs]
        return concatenate(self.single_observation_space, items, out)  # type: ignore[no-any-return]

    def _empty(self) -> dict[str, Any]:
        # A sub-environment not reset yet (reset_mask left it out): the space's zero value.
        return self.config.gym_observation({"screenshot": np.zeros(self.config.image_shape(self.sessions[0].device), np.uint8)})

    def _close_sessions(self) -> None:
        pending = [(s.client, s.client.send("close", session=s.id)) for s in self.sessions if not s.closed and not s.client.closed]
        for s in self.sessions:
            s.closed = True
        for client, request_id in pending:
            client.wait(request_id)
