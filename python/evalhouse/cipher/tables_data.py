"""Landing tables of CIPHER part 1 (benchmark data). Light: imports only the schema module."""
from ..landing import declare
from .domains import DOMAINS

for _d in DOMAINS.values():
    declare(
        f"cipher_records_{_d.name}",
        {"condition": "string", "record_id": "string", "source": "string", "story_seed": "int",
         **{c.name: c.landing_type for c in _d.columns}},
        f"CIPHER {_d.name}: one row per record x condition (source, redacted, restored) with structured, "
        "narrative and per-condition annotation-view columns; item_id = condition:record_id.",
    )

declare("cipher_replacements", {
    "domain": "string", "record_id": "string", "field": "string", "span_index": "int",
    "semantic_type": "string", "masked_text": "string", "surrogate": "string", "source_text": "string",
    "red_start": "int", "red_end": "int",
}, "One row per masked span: how the redacted text was masked and which surrogate restores it.")

declare("cipher_fact_mentions", {
    "domain": "string", "record_id": "string", "fact": "string", "mention_index": "int", "field": "string",
    "polarity": "string", "value": "json", "visible_redacted": "bool", "value_restored": "json",
}, "Every rendered mention of a latent annotation fact (affirmed, negated, hedged, non_satisfying).")

declare("cipher_instance_params", {
    "domain": "string", "template_id": "string", "seq": "int", "params": "json",
}, "Sampled template parameters; dbt renders question and SQL from the template seeds.")

declare("cipher_import_records", {
    "domain": "string", "source_format": "string", "source_file": "string", "source_row": "int",
    "record_id": "string", "fields": "json", "narrative": "string",
}, "Records imported from real exports (CFPB, MIMIC-IV discharge notes, FIR JSON/CSV).")

declare("cipher_import_rejects", {
    "domain": "string", "source_file": "string", "source_row": "int", "field": "string", "reason": "string",
}, "Import rows rejected with file, row and reason.")

declare("cipher_extractions", {
    "domain": "string", "record_id": "string", "source_file": "string", "model": "string",
    "schema_name": "string", "annotation": "json", "status": "string", "error": "string",
    "review_status": "string", "request_hash": "string",
}, "LLM information extraction of annotation facts for imported records, with provenance.")
