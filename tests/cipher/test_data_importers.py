"""Importers on the shared real samples and on malformed files (no model needed)."""
from __future__ import annotations

import csv
import json

import pytest

from evalhouse.cipher.importers import (CFPB_API_COLUMNS, CFPB_CSV_COLUMNS, import_cfpb, import_fir,
                                        import_mimic_discharge, import_mtsamples, run_import, split_sections)
from evalhouse.errors import BadInput


def test_cfpb_sample_imports_every_complaint(shared_data):
    path = shared_data / "cfpb-sample" / "complaints.csv"
    if not path.exists():
        pytest.skip("shared CFPB sample not present")
    result = import_cfpb(path)
    assert result.source_format == "cfpb_csv_18col"
    assert len(result.records) == 130 and result.rejects == []
    with open(path, newline="", encoding="utf-8-sig") as fh:
        first = next(csv.DictReader(fh))
    rec = result.records[0]
    assert rec["record_id"] == f"CFPB-{first['Complaint ID']}"
    assert rec["fields"]["company"] == first["Company"]
    assert rec["fields"]["received_year"] == int(first["Date received"][:4])
    assert rec["narrative"] == first["Consumer complaint narrative"].strip()


def test_cfpb_current_api_layout_and_bad_rows(tmp_path):
    good = dict(zip(CFPB_API_COLUMNS, ["2022-03-01", "Mortgage", "FHA mortgage", "Trouble during payment process", "",
                                       "They lost my payment.", "", "ACME BANK", "TX", "77001", "", "Consent provided",
                                       "Web", "2022-03-03", "Closed with explanation", "Yes", "N/A", "9001"]))
    bad_date = {**good, "complaint_id": "9002", "date_received": "someday"}
    bad_id = {**good, "complaint_id": "abc"}
    empty_narrative = {**good, "complaint_id": "9003", "complaint_what_happened": ""}
    path = tmp_path / "complaints.json"
    path.write_text(json.dumps([good, bad_date, bad_id, empty_narrative]))
    result = import_cfpb(path)
    assert result.source_format == "cfpb_api"
    assert [r["record_id"] for r in result.records] == ["CFPB-9001", "CFPB-9003"]
    assert result.records[0]["fields"]["sent_lag_days"] == 2 and result.records[0]["fields"]["region"] == "South"
    assert result.records[1]["narrative"] == ""  # kept, never dropped
    assert [(r["source_row"], r["field"]) for r in result.rejects] == [(2, "date_received"), (3, "complaint_id")]
    assert "not a date" in result.rejects[0]["reason"]


def test_cfpb_csv_with_a_short_row_is_rejected_by_row(tmp_path):
    path = tmp_path / "c.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CFPB_CSV_COLUMNS)
        w.writerow(["2021-01-02", "Debt collection", "", "", "", "text", "", "X", "CA", "900XX", "", "", "Web",
                    "2021-01-02", "Closed", "Yes", "N/A", "11"])
        w.writerow(["2021-01-02", "Debt collection"])
    result = import_cfpb(path)
    assert len(result.records) == 1
    assert result.rejects == [{"source_row": 2, "field": "*", "reason": "row has 2 fields, expected 18"}]


def test_unrecognised_file_is_a_clear_error(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(BadInput, match="not a CFPB complaint export"):
        import_cfpb(path)


def test_mtsamples_stand_in_for_mimic(shared_data):
    path = shared_data / "mtsamples-sample" / "mtsamples.csv"
    if not path.exists():
        pytest.skip("shared MTSamples file not present")
    result = import_mtsamples(path)
    assert len(result.records) == 101 and result.rejects == []
    filled = sum(1 for r in result.records if sum(1 for v in r["sections"].values() if v) >= 2)
    assert filled >= 30  # headed sections (SUBJECTIVE, DIAGNOSIS, PLAN, ...) are split out
    with open(path, newline="", encoding="utf-8") as fh:
        empty = sum(1 for row in csv.DictReader(fh) if not (row["transcription"] or "").strip())
    assert sum(1 for r in result.records if not r["narrative"]) == empty  # empty notes are kept, not dropped


def test_mimic_discharge_with_admissions_join(tmp_path):
    notes = tmp_path / "discharge.csv"
    with open(notes, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"])
        w.writerow(["1-DS-1", "1", "100", "DS", "1", "2180-01-05", "2180-01-05 10:00:00",
                    "Chief Complaint:\nfever\nHistory of Present Illness:\nMr. ___ with cough.\n"
                    "Brief Hospital Course:\nTreated for pneumonia.\nDischarge Diagnosis:\npneumonia\n"
                    "Discharge Instructions:\nRest."])
        w.writerow(["2-DS-1", "x", "101", "DS", "1", "", "", "text"])
    adm = tmp_path / "admissions.csv"
    adm.write_text("hadm_id,admittime,dischtime,admission_type,admission_location,discharge_location,insurance,"
                   "language,marital_status,race,hospital_expire_flag\n"
                   "100,2180-01-01 08:00:00,2180-01-05 09:00:00,URGENT,EMERGENCY ROOM,HOME,Medicare,ENGLISH,MARRIED,WHITE,0\n")
    result = import_mimic_discharge(notes, adm)
    assert len(result.records) == 1
    rec = result.records[0]
    assert rec["fields"]["admission_type"] == "URGENT" and rec["fields"]["hadm_id"] == 100
    assert rec["sections"]["discharge_diagnosis"] == "pneumonia"
    assert result.rejects[0]["field"] == "subject_id"


def test_fir_json_and_csv(tmp_path):
    rows = [{"fir_no": "12", "police_station": "ACB Hisar", "fir_date": "2021-04-05", "district": "Hisar",
             "statement_of_complaint": "The patwari demanded Rs. 5,000."},
            {"fir_no": "13", "police_station": "", "fir_date": "2021-04-06"}]
    path = tmp_path / "firs.json"
    path.write_text(json.dumps(rows))
    result = import_fir(path)
    assert [r["record_id"] for r in result.records] == ["FIR-ACB_Hisar-2021-12"]
    assert result.records[0]["fields"]["fir_year"] == 2021
    assert result.rejects == [{"source_row": 2, "field": "police_station", "reason": "is missing"}]
    csv_path = tmp_path / "firs.csv"
    csv_path.write_text("fir_no,police_station,fir_date,statement\n7,Sohna,05/06/2020,text\n")
    assert import_fir(csv_path).records[0]["narrative"] == "text"


def test_run_import_lands_records_and_rejects(warehouse, tmp_path):
    from evalhouse.landing import LandingZone

    path = tmp_path / "firs.json"
    path.write_text(json.dumps([{"fir_no": 1, "police_station": "Meham", "fir_date": "2020-01-01", "statement": "x"},
                                {"fir_no": "x", "police_station": "Meham", "fir_date": "2020-01-02"}]))
    run_import("fir", path)
    run_import("fir", path)  # the same file resumes, nothing is duplicated
    zone = LandingZone()
    assert len(zone.read("cipher_import_records")) == 1
    rejects = zone.read("cipher_import_rejects")
    assert list(rejects["field"]) == ["fir_no"] and list(rejects["source_row"]) == [2]


def test_split_sections_maps_headers():
    out = split_sections("SUBJECTIVE:,  Cough for a week.,PLAN:,  Follow up.")
    assert out["history_of_present_illness"].startswith("Cough") and out["discharge_instructions"].startswith("Follow")
