"""The protocol client against the real server (docs/env-protocol.md): sessions, observations as asked, pipelined
requests on one connection, and the server's errors as named exceptions."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pytest

import awb_env
from awb_env import EnvClient
from awb_env import client as client_module

TASK = {"template": "ContactsAddContact", "seed": 7}


@pytest.fixture()
def client(server_url: str) -> Iterator[EnvClient]:
    c = EnvClient(server_url)
    yield c
    c.close()


def test_hello_names_the_protocol_formats_and_rewards(client: EnvClient) -> None:
    assert client.hello["protocol"] == 1
    assert set(client.hello["formats"]) == {"androidworld", "ui-tars", "mobilerl", "qwen-mobile-use"}
    assert "outcome" in client.hello["rewards"]
    assert client.hello["devices"]["simdroid"] >= 8


def test_a_session_plays_an_episode_step_by_step(client: EnvClient, store) -> None:
    session = client.create(TASK, agent="client-test", run="client test", observation={"tree": "both"})
    first = session.reset()
    assert first.info["template"] == "ContactsAddContact" and first.info["seed"] == 7
    assert first.observation["goal"] == first.info["goal"] and first.observation["step"] == 0
    assert first.observation["tree"].startswith("<?xml")
    assert isinstance(first.observation["ui_elements"], list) and first.observation["ui_elements"][0]["bbox_pixels"]
    assert "screenshot" not in first.observation
    home = session.step({"action_type": "navigate_home"}, thought="start from home")
    assert home.info["step"] == 0 and home.info["error"] is None and not home.done
    assert home.observation is not None and home.observation["step"] == 1
    now = session.observe()
    assert now["tree"] == home.observation["tree"]
    end = session.step({"action_type": "status", "goal_status": "complete"})
    assert end.terminated and not end.truncated
    assert end.info["success"] is False and end.info["terminated_by"] == "status"
    assert end.info["verdict"]["conditions"], "the checker's reasons come with the end"
    assert session.close() == 1
    [episode] = store.episodes("client test")
    assert episode["policy"] == "client-test" and episode["steps"] == 2 and episode["terminated_by"] == "status"
    assert [s["thought"] for s in store.steps(episode["id"])] == ["start from home", None]


def test_raw_and_png_screenshots_show_the_same_pixels(client: EnvClient) -> None:
    raw = client.create(TASK, observation={"screenshot": "raw", "scale": 0.5, "tree": "none"})
    png = client.create(TASK, observation={"screenshot": "png", "scale": 0.5, "tree": "none"})
    kept = client.create(TASK, png="bytes", observation={"screenshot": "png", "scale": 0.5, "tree": "none"})
    a, b, c = (s.reset().observation["screenshot"] for s in (raw, png, kept))
    assert a.shape == (1200, 540, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b), "a PNG decodes to the raw pixels of the same screen"
    assert isinstance(c, bytes) and c[:8] == b"\x89PNG\r\n\x1a\n", "a PNG nobody asked to decode stays bytes"
    for s in (raw, png, kept):
        s.close()


def test_requests_for_several_sessions_are_in_flight_at_once(client: EnvClient) -> None:
    sessions = [client.create({"template": "ContactsAddContact", "seed": s}) for s in (1, 2, 3)]
    resets = [s.send_reset() for s in sessions]
    assert [p.result().info["seed"] for p in resets] == [1, 2, 3]
    # A different action per session, all sent before any answer is read; answers collected in reverse order.
    actions = [{"action_type": "wait"}, {"action_type": "navigate_home"}, {"action_type": "scroll", "direction": "down"}]
    pending = [s.send_step(a) for s, a in zip(sessions, actions)]
    results = [p.result() for p in reversed(pending)][::-1]
    assert [r.info["action"] for r in results] == actions
    assert [r.info["step"] for r in results] == [0, 0, 0]
    for s in sessions:
        s.close()


def test_server_errors_are_named_exceptions_carrying_the_request(client: EnvClient) -> None:
    with pytest.raises(awb_env.UnknownTemplateError, match="did you mean ContactsAddContact") as e:
        client.create({"template": "ContactsAdd", "seed": 1})
    assert e.value.name == "UnknownTemplateError" and e.value.op == "create"
    assert e.value.fields["task"] == {"template": "ContactsAdd", "seed": 1}
    with pytest.raises(awb_env.GivenParamsError, match="ContactsAddContact"):
        client.create({"template": "ContactsAddContact", "params": {"number": 5}})
    with pytest.raises(awb_env.SplitError, match='"nope"'):
        client.create({"split": "nope", "part": "test"})
    with pytest.raises(awb_env.ObservationSpecError, match="observation.scale"):
        client.create(TASK, observation={"scale": 0.3})
    with pytest.raises(awb_env.RewardConfigError, match="kind"):
        client.create(TASK, rewards={"components": [{"kind": "nope"}]})
    session = client.create(TASK)
    with pytest.raises(awb_env.EpisodeNotStartedError):
        session.step({"action_type": "wait"})
    with pytest.raises(awb_env.SeedError, match="-1"):
        session.reset(seed=-1)
    session.reset()
    session.step({"action_type": "answer", "text": "none"})
    with pytest.raises(awb_env.EpisodeEndedError):
        session.step({"action_type": "wait"})
    session.close()
    with pytest.raises(awb_env.SessionNotFoundError):
        client.request("observe", session=session.id)
    # The connection and its other sessions live on after every refusal.
    assert client.create(TASK).reset().info["seed"] == 7


def test_a_malformed_action_is_a_recorded_failed_step_not_an_error(client: EnvClient) -> None:
    session = client.create(TASK)
    session.reset()
    r = session.step({"action_type": "fly"})
    assert r.info["error"]["name"] == "ActionParseError" and "fly" in r.info["error"]["message"]
    assert r.info["action"] is None and not r.done
    r = session.step(json_action={"action_type": "unknown"})
    assert r.info["error"]["name"] == "AndroidWorldActionError"
    r = session.step(reply="no action here", format="ui-tars")
    assert r.info["error"]["name"] == "VlmFormatError"
    session.close()


def test_a_server_of_another_protocol_is_refused(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "PROTOCOL", 2)
    with pytest.raises(awb_env.ProtocolMismatchError, match="protocol 2") as e:
        EnvClient(server_url)
    assert "token=…" in e.value.url and server_url.split("token=")[1] not in str(e.value)


def test_a_wrong_token_is_refused_before_hello(server_url: str) -> None:
    with pytest.raises(awb_env.ServerGoneError, match="401") as e:
        EnvClient(server_url.split("token=")[0] + "token=wrong")
    assert "wrong" not in str(e.value)


def test_held_and_released_events_are_logged_once_and_passed_on(server_url: str, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[dict] = []
    c = EnvClient(server_url, on_event=seen.append)
    try:
        with caplog.at_level("INFO", logger="awb_env"):
            # The frames a server sends when a person pauses the session in the workbench, and lets it go.
            c._deliver('{"event": "held", "session": "abc", "reason": "paused in the workbench"}')
            c._deliver('{"event": "released", "session": "abc"}')
            c._deliver('{"event": "something-new", "session": "abc"}')
        assert [e["event"] for e in seen] == ["held", "released", "something-new"]
        lines = [r.getMessage() for r in caplog.records if r.name == "awb_env"]
        assert lines == ["awb_env: session abc is held in the workbench (paused in the workbench)",
                         "awb_env: session abc goes on"]
        assert c.create(TASK).reset().info["seed"] == 7, "an event is not a response"
    finally:
        c.close()


def test_a_connection_ends_the_sessions_it_made_before_letting_the_client_go(server_url: str, store) -> None:
    connection = client_module.Connection(server_url)
    a = connection.create(TASK, agent="connection-test", run="connection close")
    b = connection.create(TASK, agent="connection-test", run="connection close")
    a.reset()
    a.step({"action_type": "navigate_home"})
    connection.close()
    assert a.closed and b.closed and connection.client.closed
    connection.close()  # idempotent
    [episode] = store.episodes("connection close")
    assert episode["steps"] == 1 and episode["terminated_by"] == "aborted"
