"""`EvaluationResult`: metrics plus free-form artifacts, as evaluators written for OpenEvolve
return them. Peagen's adapter reads `metrics` and `artifacts` (see peagen_openevolve)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Union

Artifact = Union[str, bytes]


@dataclass
class EvaluationResult:
    metrics: Dict[str, float]
    artifacts: Dict[str, Artifact] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, metrics: Dict[str, Any]) -> "EvaluationResult":
        """A result with these metrics and no artifacts (what a plain dict return means)."""
        return cls(metrics=dict(metrics))

    def to_dict(self) -> Dict[str, Any]:
        """The metrics alone, as a dict-returning evaluator would give them."""
        return dict(self.metrics)

    def has_artifacts(self) -> bool:
        return bool(self.artifacts)

    def get_artifact_keys(self) -> list:
        return list(self.artifacts)

    def get_artifact_size(self, key: str) -> int:
        """Size in bytes (text counted as UTF-8); 0 for an absent key."""
        value = self.artifacts.get(key)
        if value is None:
            return 0
        if isinstance(value, bytes):
            return len(value)
        return len(str(value).encode("utf-8"))

    def get_total_artifact_size(self) -> int:
        return sum(self.get_artifact_size(key) for key in self.artifacts)
