"""TRL's real GRPOTrainer, 2 steps on CPU with the tiny random Qwen2.5-VL, against the workbench: the rollouts are
recorded episodes. A random model rarely writes a tool call, so the environment_factory run proves the contract
(resets, tools offered, rewards read) and the tools are exercised directly; the rollout_func run records the model's
real replies as steps."""

from __future__ import annotations

import os
from typing import Any

import torch

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from transformers import AutoModelForImageTextToText, AutoProcessor  # noqa: E402
from transformers.utils import get_json_schema  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from awb_env.trl_rollout import AndroidRollout, env_reward  # noqa: E402
from awb_env.trl_tools import AndroidToolEnv, tool_chat_template, with_tool_template  # noqa: E402

TOOLS = {"click", "long_press", "type_text", "scroll", "navigate_back", "navigate_home", "open_app", "answer", "finish"}


def _config(tmp_path: Any, **kw: Any) -> GRPOConfig:
    return GRPOConfig(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2, num_generations=2,
                      logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", seed=0, **kw)


def _model(path: str) -> Any:
    torch.manual_seed(0)
    return AutoModelForImageTextToText.from_pretrained(path, dtype=torch.float32)


def test_rollout_func_records_the_models_replies_as_steps(tiny_vlm: str, tmp_path: Any, store) -> None:
    processor = AutoProcessor.from_pretrained(tiny_vlm, padding_side="left")
    rollout = AndroidRollout(format="qwen-mobile-use", agent="tiny-vlm", run="trl rollout test", max_turns=2,
                             turn_tokens=8)
    dataset = rollout.dataset([("ContactsAddContact", 7)])
    assert dataset[0]["image"].size == (540, 1200)
    outputs: list[dict[str, Any]] = []

    def recording(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        out = rollout(prompts, trainer)
        outputs.append(out)
        return out

    trainer = GRPOTrainer(model=_model(tiny_vlm), processing_class=processor, reward_funcs=[env_reward],
                          args=_config(tmp_path, max_completion_length=64), train_dataset=dataset, rollout_func=recording)
    trainer.train()
    rollout.close()

    assert trainer.state.global_step == 2 and len(outputs) == 2
    image_pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    turns = []
    for out in outputs:
        assert len(out["prompt_ids"]) == len(out["completion_ids"]) == 2
        for prompt, ids, lps, mask in zip(out["prompt_ids"], out["completion_ids"], out["logprobs"], out["env_mask"]):
            assert image_pad in prompt, "the screenshot is in the model's input"
            assert len(ids) == len(lps) == len(mask) <= 64
            assert all(lp <= 0 for lp in lps) and any(lp < 0 for lp, m in zip(lps, mask) if m)
            assert all(lp == 0 for lp, m in zip(lps, mask) if not m)
            turns.append(sum(1 for j, m in enumerate(mask) if m and (j == 0 or not mask[j - 1])))
    episodes = store.episodes("trl rollout test")
    assert all(e["policy"] == "tiny-vlm" for e in episodes)
    assert sorted(e["steps"] for e in episodes) == sorted(turns), "one recorded step per model turn"
    assert max(turns) == 2, "the episode went on after the first reply"
    for e in episodes:
        steps = store.steps(e["id"])
        assert all(s["reply"] is not None for s in steps)
        assert "mobile_use" in steps[0]["prompt"], "the format's own request is stored with the first step"
    assert store.episodes("trl rollout test · first screens"), "the dataset's first screens are in a run of their own"


def test_environment_factory_plays_episodes_through_tools(tiny_vlm: str, tmp_path: Any, store) -> None:
    processor = with_tool_template(AutoProcessor.from_pretrained(tiny_vlm, padding_side="left"))
    made: list[AndroidToolEnv] = []

    def factory() -> AndroidToolEnv:
        env = AndroidToolEnv(task="ContactsAddContact", seed=0, agent="tiny-tools", run="trl tools test")
        made.append(env)
        return env

    trainer = GRPOTrainer(model=_model(tiny_vlm), processing_class=processor, args=_config(tmp_path, max_completion_length=24),
                          environment_factory=factory)
    assert {t.__name__ for t in trainer.tools} == TOOLS
    trainer.train()
    assert trainer.state.global_step == 2
    assert "rewards/AndroidToolEnv/mean" in trainer.state.log_history[0]
    for env in made:
        env._finalizer()  # the episodes still running end as aborted
    episodes = store.episodes("trl tools test")
    assert len(episodes) == 4 and {e["policy"] for e in episodes} == {"tiny-tools"}, "one episode per rollout"


def test_the_tools_act_on_the_device() -> None:
    env = AndroidToolEnv(task="ContactsAddContact", seed=7, agent="tools-direct", run="trl tools direct")
    try:
        shown = env.reset()
        assert isinstance(shown, list) and shown[0]["type"] == "image" and shown[0]["image"].size == (540, 1200)
        assert shown[1]["text"].startswith("Task: Create a new contact") and '"Phone" at (' in shown[1]["text"]
        opened = env.open_app("Contacts")
        assert opened[1]["text"].startswith("Done: Open Contacts")
        failed = env.type_text("Ana")
        assert isinstance(failed, list) and failed[1]["text"].startswith("Failed:")
        env.navigate_back()
        over = env.finish("complete")
        assert "The task is over (status): not solved" in over
        assert env.get_reward() == 0.0
        for name in TOOLS:
            schema = get_json_schema(getattr(env, name))
            assert schema["function"]["name"] == name and schema["function"]["description"]
    finally:
        env._finalizer()


def test_the_tool_template_comes_from_trl() -> None:
    assert "<tools>" in tool_chat_template() and "tool_call" in tool_chat_template()
