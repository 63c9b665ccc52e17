"""MIMIC-IV-style discharge summaries: admission fields plus six note sections from latent facts."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from ..textdoc import Doc
from .common import filler, weighted

DIAGNOSES = ["pneumonia", "sepsis", "congestive heart failure", "COPD exacerbation", "acute kidney injury",
             "urinary tract infection", "atrial fibrillation", "diabetic ketoacidosis", "GI bleed", "cellulitis",
             "pulmonary embolism", "ischemic stroke", "NSTEMI", "acute pancreatitis", "hyponatremia"]
PROCEDURES = ["central line placement", "cardiac catheterization", "intubation", "paracentesis", "thoracentesis",
              "EGD", "colonoscopy", "hemodialysis", "blood transfusion", "lumbar puncture"]
MEDS = ["metoprolol", "lisinopril", "furosemide", "apixaban", "warfarin", "insulin glargine", "metformin",
        "atorvastatin", "levofloxacin", "prednisone", "pantoprazole", "albuterol", "aspirin", "amoxicillin"]
COMPLICATIONS = ["delirium", "hospital-acquired pneumonia", "C. diff infection", "fall", "pressure ulcer",
                 "hypotension", "line infection"]
DISPOSITIONS = {"home": 40, "home_with_services": 22, "snf": 16, "rehab": 14, "expired": 8}
FACILITY_KIND = {"snf": "Nursing and Rehabilitation Center", "rehab": "Acute Rehabilitation Hospital",
                 "home_with_services": "Home Health Services"}
DISPO_HEADER = {"home": "Home", "home_with_services": "Home With Service", "snf": "Extended Care",
                "rehab": "Extended Care", "expired": "Expired"}
ADM_TYPES = {"EW EMER.": 45, "URGENT": 15, "OBSERVATION ADMIT": 15, "ELECTIVE": 10, "DIRECT EMER.": 15}
ADM_LOC = ["EMERGENCY ROOM", "TRANSFER FROM HOSPITAL", "PHYSICIAN REFERRAL", "CLINIC REFERRAL", "WALK-IN/SELF REFERRAL"]
DISCH_LOC = {"home": "HOME", "home_with_services": "HOME HEALTH CARE", "snf": "SKILLED NURSING FACILITY",
             "rehab": "REHAB", "expired": "DIED"}
SERVICES = ["MEDICINE", "SURGERY", "CARDIOLOGY", "NEUROLOGY", "ORTHOPAEDICS"]

FILLER = [
    "Vital signs on admission were notable for a heart rate of <hr> and a blood pressure of <bp>.",
    "The patient was seen by Dr. {PERSON|<doc>} from the consult service on {DATE|<date>}.",
    "Labs were notable for a white count of <wbc> and a creatinine of <cr>.",
    "Physical therapy evaluated the patient and recommended continued ambulation with a walker.",
    "The patient's outpatient records from {LOCATION|<hosp>} were reviewed.",
    "Chest x-ray on {DATE|<date>} showed no acute cardiopulmonary process.",
    "The patient tolerated a regular diet prior to discharge.",
    "Electrolytes were repleted as needed throughout the admission.",
    "Code status was confirmed as full code with the patient and family.",
    "The patient's daughter, {PERSON|<other>}, was updated by phone on {DATE|<date>}.",
    "Home medications were reviewed with the pharmacist at the time of admission.",
    "Blood cultures drawn on admission showed no growth to date.",
    "Pain was controlled with acetaminophen and the patient was comfortable.",
    "The patient lives with family in {LOCATION|<city>} and was independent at baseline.",
    "Fingersticks were monitored four times daily with a sliding scale.",
    "Telemetry showed sinus rhythm without significant events.",
    "Social work met with the patient to discuss resources after discharge.",
    "The patient was counseled on warning signs that should prompt a return to the emergency department.",
    "Follow-up with the primary care physician, Dr. {PERSON|<doc>}, was arranged for {DATE|<date>}.",
    "The patient's weight on discharge was <wt> kg.",
    "Nutrition was consulted and recommended oral supplements with meals.",
    "Repeat labs on {DATE|<date>} were stable.",
]
HPI_OPEN = ["Mr. {PERSON|<name>} is a ___ year old man with a history of <pmh> who presents with <cc>.",
            "Ms. {PERSON|<name>} is a <age> year old woman with <pmh> who presented to {LOCATION|<hosp>} with <cc>.",
            "Patient is a <age> y/o with PMH of <pmh> who was brought in by family for <cc>."]
CC = {"pneumonia": "cough and fever", "sepsis": "fevers and confusion", "congestive heart failure": "shortness of breath and leg swelling",
      "COPD exacerbation": "worsening dyspnea", "acute kidney injury": "decreased urine output", "urinary tract infection": "dysuria",
      "atrial fibrillation": "palpitations", "diabetic ketoacidosis": "nausea and vomiting", "GI bleed": "melena",
      "cellulitis": "leg redness", "pulmonary embolism": "pleuritic chest pain", "ischemic stroke": "left-sided weakness",
      "NSTEMI": "chest pain", "acute pancreatitis": "abdominal pain", "hyponatremia": "confusion and falls"}


def make_record(rng: random.Random, fake, idx: int, story_seed: int) -> tuple[dict, dict, dict]:
    primary = rng.choice(DIAGNOSES)
    secondary = rng.sample([d for d in DIAGNOSES if d != primary], k=rng.choice([0, 1, 1, 2, 3]))
    dispo = weighted(rng, DISPOSITIONS)
    facts = {
        "primary_diagnosis": primary, "diagnoses": [primary, *secondary],
        "procedures": rng.sample(PROCEDURES, k=rng.choice([0, 1, 1, 2])),
        "discharge_meds": [] if dispo == "expired" else rng.sample(MEDS, k=rng.randint(2, 6)),
        "complications": rng.sample(COMPLICATIONS, k=rng.choice([0, 0, 0, 1, 1, 2])),
        "discharge_disposition": dispo, "icu_transfer": rng.random() < 0.22, "current_smoker": rng.random() < 0.25,
    }
    admit = datetime(2110, 1, 1) + timedelta(days=rng.randrange(365 * 12), hours=rng.randrange(24), minutes=rng.randrange(60))
    los = timedelta(days=rng.randint(1, 14), hours=rng.randrange(24))
    disch = admit + los
    subject = 10_000_000 + rng.randrange(9_000_000)
    structured = {
        "note_id": f"{subject}-DS-{rng.randint(1, 30)}", "subject_id": subject, "hadm_id": 20_000_000 + rng.randrange(9_000_000),
        "note_type": "DS", "note_seq": rng.randint(1, 30), "charttime": disch.replace(hour=0, minute=0, second=0),
        "storetime": disch + timedelta(hours=rng.randint(2, 30)), "admittime": admit, "dischtime": disch,
        "admission_type": weighted(rng, ADM_TYPES), "admission_location": rng.choice(ADM_LOC),
        "discharge_location": DISCH_LOC[dispo], "insurance": rng.choice(["Medicare", "Medicaid", "Other", "Private"]),
        "language": rng.choices(["ENGLISH", "SPANISH", "CHINESE", "?"], [80, 10, 4, 6])[0],
        "marital_status": rng.choice(["MARRIED", "SINGLE", "WIDOWED", "DIVORCED"]),
        "race": rng.choice(["WHITE", "BLACK/AFRICAN AMERICAN", "HISPANIC/LATINO - PUERTO RICAN", "ASIAN", "OTHER"]),
        "hospital_expire_flag": 1 if dispo == "expired" else 0, "service": rng.choice(SERVICES),
    }
    return structured, _sections(rng, fake, facts, story_seed), facts


def _slots(rng, story, fake):
    return {"hr": lambda: story.randint(60, 130), "bp": lambda: f"{story.randint(90, 170)}/{story.randint(50, 100)}",
            "doc": lambda: fake.last_name(), "date": lambda: f"{story.randint(1, 12)}/{story.randint(1, 28)}",
            "wbc": lambda: round(story.uniform(3, 22), 1), "cr": lambda: round(story.uniform(0.6, 4.5), 1),
            "hosp": lambda: f"{fake.last_name()} Hospital", "other": lambda: fake.name(), "city": lambda: fake.city(),
            "wt": lambda: story.randint(45, 130), "name": lambda: fake.last_name(), "age": lambda: story.randint(35, 88)}


def _sections(rng, fake, facts, story_seed) -> dict[str, Doc]:
    story = random.Random(story_seed)
    slots = _slots(rng, story, fake)
    target = story.randint(700, 1200)
    primary = facts["primary_diagnosis"]
    pmh = ", ".join(story.sample(["hypertension", "hyperlipidemia", "type 2 diabetes", "CKD stage 3", "obesity", "GERD"], k=2))
    docs = {name: Doc() for name in ("chief_complaint", "history_of_present_illness", "brief_hospital_course",
                                     "discharge_medications", "discharge_diagnosis", "discharge_instructions")}
    docs["chief_complaint"].add(CC[primary].capitalize())
    hpi = docs["history_of_present_illness"]
    hpi.add(story.choice(HPI_OPEN).replace("<pmh>", pmh).replace("<cc>", CC[primary])
            .replace("<name>", fake.last_name()).replace("<age>", str(story.randint(35, 88)))
            .replace("<hosp>", f"{fake.last_name()} Hospital"))
    _smoking(hpi, rng, facts["current_smoker"])
    filler(hpi, story, FILLER, slots, target * 0.25)
    course = docs["brief_hospital_course"]
    course.add(f"# {primary.capitalize()}: " + rng.choice([
        f"The patient was treated for {primary} with close monitoring.",
        f"Presentation was consistent with {primary}, and appropriate therapy was started.",
        f"Workup confirmed {primary}."]), "diagnoses", primary)
    for dx in facts["diagnoses"][1:]:
        course.add(rng.choice([f"# {dx.capitalize()}: managed during this admission.",
                               f"She was also found to have {dx}, which was treated.",
                               f"Course was complicated by concurrent {dx}."]), "diagnoses", dx)
    for dx in rng.sample([d for d in DIAGNOSES if d not in facts["diagnoses"]], k=rng.choice([0, 1, 2])):
        kind = rng.choice(["negated", "hedged", "non_satisfying"])
        course.add({"negated": f"There was initial concern for {dx}, but this was ruled out.",
                    "hedged": f"Possible {dx} was considered; workup was inconclusive and it was not treated.",
                    "non_satisfying": f"Family history is notable for {dx} in her mother."}[kind], "diagnoses", dx, kind)
    for proc in facts["procedures"]:
        course.add(rng.choice([f"She underwent {proc} on {{DATE|{story.randint(1, 12)}/{story.randint(1, 28)}}} without complication.",
                               f"{proc.capitalize()} was performed during the admission.",
                               f"The team performed {proc}, which the patient tolerated well."]), "procedures", proc)
    for proc in rng.sample([p for p in PROCEDURES if p not in facts["procedures"]], k=rng.choice([0, 1])):
        course.add(rng.choice([f"{proc.capitalize()} was discussed but deferred to the outpatient setting.",
                               f"The patient declined {proc}."]), "procedures", proc, "negated")
    for cx in facts["complications"]:
        course.add(rng.choice([f"Hospital course was complicated by {cx}.", f"On hospital day {story.randint(2, 6)} the patient developed {cx}.",
                               f"The stay was notable for an episode of {cx}, which resolved."]), "complications", cx)
    if rng.random() < 0.35:
        cx = rng.choice([c for c in COMPLICATIONS if c not in facts["complications"]])
        course.add(rng.choice([f"Precautions were taken to prevent {cx}.", f"No {cx} occurred during this admission."]),
                   "complications", cx, "negated")
    if facts["icu_transfer"]:
        course.add(rng.choice(["The patient was transferred to the MICU for closer monitoring.",
                               "Given hemodynamic instability she was moved to the ICU on hospital day 2."]), "icu_transfer", True)
    elif rng.random() < 0.3:
        course.add(rng.choice(["ICU consult was obtained, but the patient did not require transfer.",
                               "The patient remained on the floor without need for ICU level care."]), "icu_transfer", False, "negated")
    filler(course, story, FILLER, slots, target * 0.75)
    meds = docs["discharge_medications"]
    for i, med in enumerate(facts["discharge_meds"], 1):
        meds.add(f"{i}. {med.capitalize()} {story.choice(['5', '10', '20', '25', '40', '81', '500'])} mg PO {story.choice(['DAILY', 'BID', 'TID', 'QHS'])}",
                 "discharge_meds", med, sep="\n")
    for med in rng.sample([m for m in MEDS if m not in facts["discharge_meds"]], k=rng.choice([0, 1, 1])):
        meds.add(f"STOP taking {med} until you see your doctor.", "discharge_meds", med, "negated", sep="\n")
    if not facts["discharge_meds"]:
        meds.add("None.")
    dx = docs["discharge_diagnosis"]
    dx.add(f"Primary: {primary}", "primary_diagnosis", primary)
    if facts["diagnoses"][1:]:
        dx.add("Secondary: " + ", ".join(facts["diagnoses"][1:]), sep="\n")
    instr = docs["discharge_instructions"]
    _disposition(instr, rng, fake, facts["discharge_disposition"])
    filler(instr, story, FILLER, slots, target - sum(d.words() for d in docs.values()) + instr.words())
    return docs


def _smoking(doc, rng, smoker: bool):
    if smoker:
        doc.add(rng.choice(["She smokes one pack per day.", "Current smoker, ~20 pack-years.", "Reports ongoing tobacco use."]),
                "current_smoker", True)
    else:
        kind = rng.choice(["negated", "non_satisfying", None])
        if kind:
            doc.add({"negated": "Denies tobacco use.", "non_satisfying": "Former smoker, quit 15 years ago."}[kind],
                    "current_smoker", False, kind)


def _disposition(doc, rng, fake, dispo):
    doc.add(f"Discharge Disposition: {DISPO_HEADER[dispo]}",
            "discharge_disposition", dispo if dispo not in ("snf", "rehab") else "extended_care")
    if dispo in FACILITY_KIND:
        doc.add(f"Facility: {{FACILITY*|{fake.last_name()} {FACILITY_KIND[dispo]}}}", "discharge_disposition", dispo, sep="\n")
    if dispo == "expired":
        doc.add("The patient passed away with family at the bedside.", "discharge_disposition", dispo)
    else:
        doc.add("Dear Patient, it was a pleasure taking care of you at the hospital.", sep="\n")
