"""The typed settings of STEER: the config section ``studies.steer`` after validation filled the schema's defaults.

``schemas/config.schema.yaml`` is the only place a default lives; :func:`choicelab.studies.study_settings` reads every
key with the generic reader :func:`choicelab.settings.read` (a key the validated config lacks is a bug, and fails
there naming it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from choicelab.studies.steer.adaptations import Adaptation
from choicelab.studies.steer.items.base import BenchmarkScale

if TYPE_CHECKING:
    from choicelab.studies.steer.items.base import BenchmarkScale


@dataclass(frozen=True)
class Scale:
    """``studies.steer.scale``: which questions to generate (one test = element x domain x grade)."""

    n_per_test: int
    elements: tuple[str, ...] | None
    domains: tuple[str, ...] | None
    grades: tuple[int, ...] | None
    max_domains: int | None
    strict: bool

    def benchmark_scale(self, seed: int) -> BenchmarkScale:
        """The generator's scale, seeded with the config's ``seed``."""

        return BenchmarkScale(n_per_test=self.n_per_test, seed=seed, elements=self.elements, domains=self.domains,
                              grades=self.grades, max_domains=self.max_domains, strict=self.strict)


@dataclass(frozen=True)
class Settings:
    """``studies.steer``: one field per key of the schema's section."""

    enabled: bool
    models: tuple[str, ...]
    scale: Scale
    adaptations: tuple[Adaptation, ...]  # {shots: n} / {explain: mode} (choicelab.studies.steer.adaptations)
    fewshot_pool: int
    adaptation_questions: int | None
    max_new_tokens: int


def check_scale_ids(scale: Scale, taxonomy: Any) -> None:
    """Fail naming the key and the ids when ``studies.steer.scale`` lists elements or domains the taxonomy lacks."""
    known = {"elements": {e.id for e in taxonomy.elements},
             "domains": {d for e in taxonomy.elements for d in e.domains}}
    for key in ("elements", "domains"):
        bad = [i for i in getattr(scale, key) or () if i not in known[key]]
        if bad:
            raise ValueError(f"studies.steer.scale.{key} names unknown STEER {key} {bad}; known: "
                             f"{sorted(known[key])} (data/steer/taxonomy.yaml)")
