"""Mode rl (issue #23) through the binding: the plan's phases, keyword
options of the "rl" group, the solver on the rollout batch, and the
specific errors."""
import pytest

import vramest

VERL = {"model": "qwen2-0.5b", "precision": "bf16", "device": "H100-80GB",
        "runtime": {"framework": "verl"},
        "workload": {"mode": "rl", "finetune": "lora", "num_generations": 5, "rollout_batch_size": 16,
                     "prompt_len": 512, "gen_len": 1024, "gradient_checkpointing": "full"},
        "parallel": {"gpus": 2, "fsdp": "full_shard", "offload_params": "cpu", "offload_optimizer": "cpu"},
        "rl": {"critic": None, "rollout": {"engine": "vllm", "gpu_memory_utilization": 0.25, "sleep_mode": True}}}


def test_the_plan_lists_the_phases_and_their_peak():
    plan = vramest.estimate(VERL)
    rl = plan["rl"]
    assert [p["name"] for p in rl["phases"]] == ["rollout", "scoring", "training"]
    peak = [p for p in rl["phases"] if p["name"] == rl["peak_phase"]][0]
    assert plan["gpu"]["device_total"] == peak["device_total"]
    assert rl["placement"] == "colocated" and rl["engine_sleeps"] is True
    assert plan["settings"]["rl"]["rollout_gpu_memory_utilization"] == 0.25


def test_keywords_of_the_rl_group_go_to_the_rl_object():
    spec = {k: v for k, v in VERL.items() if k != "rl"}
    by_keywords = vramest.estimate(spec, rollout_engine="vllm", rollout_gpu_memory_utilization=0.25,
                                   rollout_sleep_mode="on")
    assert by_keywords["rl"] == vramest.estimate(VERL)["rl"]


def test_the_largest_rollout_batch():
    plan = vramest.estimate(dict(VERL, solve={"max": "rollout_batch_size"}))
    assert plan["solution"]["key"] == "rollout_batch_size"
    assert plan["solution"]["fits"] is True and plan["solution"]["value"] >= 1


def test_trl_refuses_groups_that_do_not_divide_the_batch():
    with pytest.raises(vramest.Conflict, match="num_generations 3 must divide"):
        vramest.estimate("qwen2-0.5b", mode="rl", framework="trl", batch_size=8, num_generations=3)


def test_a_reference_of_another_vocabulary_is_refused():
    spec = dict(VERL, rl={"reference": {"model": "llama-3.2-1b"}})
    with pytest.raises(vramest.Conflict, match="vocabulary"):
        vramest.estimate(spec)
