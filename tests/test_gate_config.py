"""Gate settings from pyproject.toml / a TOML file: discovery, overrides in order, ignores, errors."""

import pytest

from gpulens.gate.config import ConfigError, GateConfig, load_config


def test_defaults_without_a_config(tmp_path):
    cfg = load_config(cwd=tmp_path)
    assert (cfg.threshold, cfg.alpha, cfg.min_kernel_share, cfg.source) == (0.05, 0.01, 0.01, None)


def test_pyproject_is_discovered_and_overrides_apply_in_order(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n'
        '[tool.gpulens.gate]\nthreshold = 0.1\nignore = ["kernel:*nccl*"]\n'
        '[tool.gpulens.gate.metrics."kernel:*"]\nthreshold = 0.2\n'
        '[tool.gpulens.gate.metrics."kernel:*gemm*"]\nthreshold = 0.08\ngating = false\n')
    cfg = load_config(cwd=tmp_path)
    assert cfg.source.endswith("pyproject.toml")
    assert cfg.rule("span_ns").threshold == 0.1
    assert cfg.rule("kernel:relu").threshold == 0.2
    r = cfg.rule("kernel:ampere_sgemm_128x64")
    assert r.threshold == 0.08 and r.gating is False          # the later, more specific table wins
    assert cfg.rule("kernel:ncclKernel_AllReduce").ignore
    assert not cfg.rule("kernel:relu").ignore


def test_a_separate_file_with_top_level_keys(tmp_path):
    p = tmp_path / "gate.toml"
    p.write_text('alpha = 0.05\nfail_on_ambiguous = true\n[metrics."span_ns"]\ndirection = "higher"\n')
    cfg = load_config(p)
    assert cfg.alpha == 0.05 and cfg.fail_on_ambiguous and cfg.rule("span_ns").direction == "higher"


@pytest.mark.parametrize("text,needle", [
    ("threshhold = 0.1", "unknown gate setting 'threshhold'"),
    ("threshold = -1", "must not be negative"),
    ("threshold = true", "must be a number"),
    ("alpha = 1.5", "strictly between 0 and 1"),
    ('[metrics."x"]\ndirection = "up"', "must be \"lower\" or \"higher\""),
    ('[metrics."x"]\nthreshold = "5%"', "wrong type"),
    ("threshold = ", "not valid TOML"),
])
def test_invalid_settings_name_the_file_and_key(tmp_path, text, needle):
    p = tmp_path / "gate.toml"
    p.write_text(text + "\n")
    with pytest.raises(ConfigError, match=needle) as e:
        load_config(p)
    assert str(p) in str(e.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml")


def test_config_to_dict_is_json_ready():
    cfg = GateConfig(metrics=[("span_ns", {"threshold": 0.1})])
    assert cfg.to_dict()["metrics"] == {"span_ns": {"threshold": 0.1}}
