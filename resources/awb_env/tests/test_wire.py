"""The binary framing of docs/env-protocol.md, "Frames" (decoding what the server sends)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from awb_env.errors import WireFormatError
from awb_env.observation import decode_observation
from awb_env.wire import decode_frame, encode_frame, encode_request


def test_a_binary_frame_gives_its_attachments_in_place_of_their_references() -> None:
    frame = encode_frame({"id": 3, "result": {"a": {"$bin": 1}, "b": [{"$bin": 0}]}}, [b"first", b"\x00\x01second"])
    msg = decode_frame(frame)
    assert msg["id"] == 3
    assert bytes(msg["result"]["a"]) == b"\x00\x01second"
    assert bytes(msg["result"]["b"][0]) == b"first"


def test_an_escaped_bin_key_is_read_back_with_one_dollar_less() -> None:
    assert decode_frame('{"x": {"$$bin": 0}, "y": {"$$$bin": "z"}}') == {"x": {"$bin": 0}, "y": {"$$bin": "z"}}
    assert decode_frame(encode_frame({"x": {"$$bin": 7}}, [])) == {"x": {"$bin": 7}}


@pytest.mark.parametrize(
    ("frame", "says"),
    [
        (b"\x01\x00", "shorter than its header"),
        (struct.pack("<I", 50) + b"{}", "overruns the frame"),
        (struct.pack("<I", 2) + b"{}" + b"\x01\x00", "truncated attachment length"),
        (struct.pack("<I", 2) + b"{}" + struct.pack("<I", 9) + b"abc", "attachment of 9 bytes"),
        (encode_frame({"a": {"$bin": 2}}, [b"x"]), "missing attachment 2"),
        (struct.pack("<I", 3) + b"{x}", "not JSON"),
        ('{"a": {"$bin": 0}}', "missing attachment 0"),
    ],
)
def test_a_malformed_frame_is_refused_with_what_is_wrong(frame: bytes | str, says: str) -> None:
    with pytest.raises(WireFormatError, match=says):
        decode_frame(frame)


def test_requests_carry_numpy_values_as_json_numbers() -> None:
    text = encode_request({"id": 1, "op": "step", "action": {"action_type": "click", "x": np.int64(4), "y": np.float32(2.5)}})
    assert text == '{"id":1,"op":"step","action":{"action_type":"click","x":4,"y":2.5}}'


def test_a_raw_screenshot_becomes_a_writable_contiguous_rgb_array() -> None:
    pixels = bytes(range(2 * 3 * 4))  # RGBA: the alpha is dropped
    frame = encode_frame({"screenshot": {"format": "rgba", "width": 3, "height": 2, "data": {"$bin": 0}}}, [pixels])
    obs = decode_observation(decode_frame(frame))
    assert obs is not None
    shot = obs["screenshot"]
    assert shot.shape == (2, 3, 3) and shot.dtype == np.uint8 and shot.flags.writeable and shot.flags.c_contiguous
    assert shot[1, 2].tolist() == [20, 21, 22]


def test_a_raw_screenshot_of_the_wrong_size_is_refused() -> None:
    frame = encode_frame({"screenshot": {"format": "rgba", "width": 3, "height": 2, "data": {"$bin": 0}}}, [b"short"])
    with pytest.raises(WireFormatError, match="needs 24 bytes"):
        decode_observation(decode_frame(frame))
