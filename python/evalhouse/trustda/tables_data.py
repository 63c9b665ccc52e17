"""Landing tables of TrustDABench part 1 (source tasks, candidates, issues, human votes)."""
from ..landing import declare

declare("trustda_source_tasks", {
    "dataset": "string", "question": "string", "constraints": "string", "answer_format": "string",
    "category": "string", "level": "string", "file_kind": "string", "files": "json", "package_path": "string",
    "package_hash": "string", "gold_sql": "string", "answer_names": "json", "label_pairs": "json",
    "fields_used": "json", "steps": "int", "meta": "json", "table_profile": "json",
}, "One row per source task (built-in or imported), with its package and answer path.")

declare("trustda_candidates", {
    "source_task_id": "string", "dataset": "string", "operator": "string", "operator_code": "string",
    "track": "string", "level": "string", "builder": "string", "verdict": "string", "failure_category": "string",
    "failure_reason": "string", "question": "string", "new_question": "string", "files": "json",
    "package_path": "string", "package_hash": "string", "gold_reason": "string", "gold_reason_code": "string",
    "gold_evidence": "json", "counterfactual_answer": "string", "attacked_answer": "string",
    "selection_protocol": "json", "construction_protocol": "json", "validation_protocol": "json",
}, "One row per perturbation candidate with its verdict and its three protocols.")

declare("trustda_source_issues", {
    "dataset": "string", "file": "string", "reason": "string",
}, "Source files that could not be parsed (or templates dropped), with the reason; their tasks are skipped.")

declare("trustda_human_votes", {
    "candidate_id": "string", "expert": "string", "valid": "bool", "comment": "string",
}, "Human verification votes on candidates (an instance is kept when at least 90% vote valid).")
