"""LLM information extraction of imported records, against the loopback OpenAI-compatible server."""
from __future__ import annotations

import json

import pytest

from evalhouse.benchmarks import JobOptions
from evalhouse.cipher.extraction import extract, messages_for, schema_for
from evalhouse.cipher.importers import run_import
from evalhouse.errors import UserError


def test_schema_defaults_are_null_false_empty():
    facts = schema_for("mimic")()
    assert facts.primary_diagnosis is None and facts.icu_transfer is False and facts.diagnoses == []
    with pytest.raises(Exception):
        schema_for("cfpb")(unknown_field=1)


def test_prompt_carries_the_narrative_and_every_fact():
    msgs = messages_for("cfpb", "My account was frozen.")
    assert msgs[-1]["content"] == "My account was frozen."
    assert "restricted_account_access" in msgs[0]["content"] and "null" in msgs[0]["content"]


def test_extraction_requires_a_builder_model(warehouse):
    with pytest.raises(UserError, match="builder model"):
        extract(JobOptions())


def test_extraction_lands_facts_with_provenance(warehouse, tmp_path, loopback_llm):
    from llm_server import json_reply

    from evalhouse.landing import LandingZone

    path = tmp_path / "c.json"
    rows = [{"complaint_id": str(i), "date_received": "2022-01-0%d" % i, "product": "Mortgage", "sub_product": "",
             "issue": "x", "sub_issue": "", "complaint_what_happened": text, "company_public_response": "",
             "company": "ACME", "state": "TX", "zip_code": "", "tags": "", "consumer_consent_provided": "",
             "submitted_via": "Web", "date_sent_to_company": "", "company_response": "Closed", "timely": "Yes",
             "consumer_disputed": "N/A"} for i, text in [(1, "They froze my account."), (2, "broken")]]
    path.write_text(json.dumps(rows))
    run_import("cfpb", path)

    def handler(body):
        user = body["messages"][-1]["content"]
        if "froze" in user:
            return json_reply({"restricted_account_access": True, "fraud_alleged": False, "identity_theft": False,
                               "amount_disputed_usd": None, "resolution_outcome": None, "contact_attempts": None,
                               "late_fee_charged": False, "credit_report_error": False, "legal_action_mentioned": False})
        return json_reply("{not json")
    loopback_llm.set_handler(handler)
    opts = JobOptions(builder_model="vllm/loopback-extractor", base_url=loopback_llm.base_url, concurrency=2)
    summary = extract(opts, ("cfpb",))
    assert summary["extracted_now"] == 2 and summary["ok"] == 1
    out = LandingZone().read("cipher_extractions").set_index("record_id")
    ok = out.loc["CFPB-1"]
    assert ok["status"] == "ok" and json.loads(ok["annotation"])["restricted_account_access"] is True
    assert ok["model"] == "vllm/loopback-extractor" and ok["review_status"] == "unreviewed" and ok["request_hash"]
    assert out.loc["CFPB-2"]["status"] == "error"
    again = extract(opts, ("cfpb",))  # resumable: nothing left to do in this run
    assert again["extracted_now"] == 0
