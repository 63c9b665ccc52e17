"""Source tasks and the three protocols of the construction pipeline (paper Tables 5-7).

Every candidate, accepted or rejected, stores its selection, construction and validation
protocol as JSON so each instance is auditable.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class SourceTask(BaseModel):
    source_task_id: str
    dataset: Literal["builtin", "dabench"]
    question: str
    constraints: str = ""
    answer_format: str = ""
    category: str = ""
    level: str = "medium"
    files: list[str]
    gold_sql: str | None = None
    answer_names: list[str]
    reference_pairs: list[tuple[str, str]]
    fields_used: list[tuple[str, str]] = Field(default_factory=list)  # (table, column)
    steps: int = 1  # dependent analysis operations on the answer path
    meta: dict[str, Any] = Field(default_factory=dict)  # template facts the operators use
    package_path: str = ""
    package_hash: str = ""

    @property
    def reference_answer(self) -> str:
        return " ".join(f"@{n}[{v}]" for n, v in self.reference_pairs)


class RejectedAttack(BaseModel):
    attack_type: str
    blocking_condition: str


class SelectionProtocol(BaseModel):
    """Table 5."""

    sample_id: str
    eligible_attacks: list[str] = Field(default_factory=list)
    attack_type: str
    confidence: float = 1.0
    reason: str = ""
    required_edit: Literal["question_only", "modify_files", "remove_files", "none"] | None = None
    target: dict[str, Any] = Field(default_factory=dict)
    candidate_fields: list[str] = Field(default_factory=list)
    fact_key: dict[str, Any] | None = None
    reasoning_stage: str | None = None
    reasoning_chain: list[str] = Field(default_factory=list)
    structure_dependency: str | None = None
    proposed_transformation: str | None = None
    answer_invariance_reason: str | None = None
    risk_checks: list[str] = Field(default_factory=list)
    rejected_attacks: list[RejectedAttack] = Field(default_factory=list)


class ConstructionProtocol(BaseModel):
    """Table 6."""

    status: Literal["constructed", "rejected"]
    attack_type: str
    new_question: str
    expected_answer: dict[str, Any] | None = None  # reliability: gold refusal target
    file_edit_required: bool = True
    output_files: list[str] = Field(default_factory=list)
    input_file: list[str] = Field(default_factory=list)
    edit_plan: list[str] = Field(default_factory=list)
    edit_summary: str = ""
    base_attack_components: list[str] = Field(default_factory=list)
    reasoning_chain: list[str] = Field(default_factory=list)
    attack_evidence: dict[str, Any] = Field(default_factory=dict)
    hardness_check: dict[str, bool] = Field(default_factory=dict)
    transformation_record: dict[str, Any] = Field(default_factory=dict)
    quality_check: dict[str, bool] = Field(default_factory=dict)
    reject_reason: str | None = None


class ValidationProtocol(BaseModel):
    """Table 7 (rule-based validator; the blind LLM validator fills the same fields)."""

    validator: str = "rules"
    verdict: Literal["pass", "fail"]
    independent_check_completed: bool = True
    original_answerable: bool = True
    original_answer: str | None = None
    attack_rule_valid: bool = False
    attack_effective: bool = False
    question_preservation_valid: bool | None = None
    file_edit_scope_valid: bool | None = None
    unique_answer_impossible: bool | None = None
    no_alternative_answer_path: bool | None = None
    hardness_valid: bool | None = None
    can_answer: bool | None = None
    should_refuse: bool | None = None
    refusal_reason: str | None = None
    matches_expected: bool | None = None
    fabricated_answer: str | None = None
    fabricated_answer_risk: bool | None = None
    task_still_answerable: bool | None = None
    unique_answer_preserved: bool | None = None
    attacked_answer: str | None = None
    normalized_equivalent: bool | None = None
    equivalence_evidence: str | None = None
    reference_comparison: str | None = None
    checked_evidence: list[str] = Field(default_factory=list)
    counterfactual_answer: str | None = None
    field_binding_audit: list[dict[str, Any]] = Field(default_factory=list)
    synonym_audit: list[dict[str, Any]] = Field(default_factory=list)
    decoy_feature_audit: list[dict[str, Any]] = Field(default_factory=list)
    non_observation_row_audit: list[dict[str, Any]] = Field(default_factory=list)
    interpretation_risk_audit: dict[str, Any] = Field(default_factory=dict)
    constraint_checks: dict[str, Any] = Field(default_factory=dict)
    failure_category: str | None = None
    failure_reason: str | None = None
