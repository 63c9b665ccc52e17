"""Landing tables of TUPLE-Bench part 1 (data): registrations, worlds, certificates, QC,
native responses, refusal-probe responses, decoder predictions and recovery statistics."""
from ..landing import declare

declare("tuplebench_pair_registry", {
    "pair_id": "string", "domain": "string", "coarse_category": "string",
    "hypothesis_a": "string", "hypothesis_b": "string", "world0_mechanism": "string",
    "world1_mechanism": "string", "split": "string", "pair_seed": "int", "registered_order": "int",
}, "Counterfactual pairs registered before their worlds are generated (item_id = pair_id).")

declare("tuplebench_worlds_raw", {
    "world_id": "string", "pair_id": "string", "world_index": "int", "domain": "string",
    "coarse_category": "string", "mechanism": "string", "split": "string",
    "public_context": "string", "private_evidence": "string", "candidates": "json",
    "recipient_contract": "string", "check_laws": "json", "costs": "json",
    "hypothesis_a": "string", "hypothesis_b": "string", "discriminants_used": "json",
    "generator": "string",
}, "Generated worlds, two per registered pair (item_id = world_id).")

declare("tuplebench_certificates", {
    "pair_id": "string", "passed": "bool", "checks": "json", "failed_checks": "json",
}, "Counterfactual certificate of each pair: every structural check and its result.")

declare("tuplebench_qc_results", {
    "pair_id": "string", "stage": "string", "verdict": "string", "details": "json",
    "judge_model": "string",
}, "Appendix J quality control by an LLM judge (builder role), one row per pair and stage.")

declare("tuplebench_responses_raw", {
    "system": "string", "system_kind": "string", "task": "string", "world_id": "string",
    "attempt": "int", "is_final": "bool", "valid": "bool", "invalid_reason": "string",
    "choice": "string", "probabilities": "json", "confidence": "float", "raw_text": "string",
    "request_hash": "string", "generation_run_id": "string",
}, "Every attempt of a native response (task coarse or probe); is_final marks the saved one.")

declare("tuplebench_decoder_predictions", {
    "system": "string", "domain": "string", "view": "string", "variant": "string",
    "world_id": "string", "pair_id": "string", "split": "string", "decoder": "string",
    "score": "float", "predicted_b": "bool", "correct": "bool",
}, "Frozen secret-recovery decoder predictions on validation and test worlds.")

declare("tuplebench_recovery_stats", {
    "system": "string", "domain": "string", "view": "string", "variant": "string",
    "metric": "string", "estimate": "float", "ci_low": "float", "ci_high": "float",
    "n_pairs": "int", "n_worlds": "int", "decoder": "string", "bootstrap_resamples": "int",
}, "Recovery, gains and paired differences with pair-clustered percentile bootstrap intervals.")
