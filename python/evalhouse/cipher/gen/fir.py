"""FIRs in the style of Haryana Anti-Corruption Bureau reports, written from latent facts."""
from __future__ import annotations

import random
from datetime import timedelta, date

from ..textdoc import Doc, Mention
from .common import filler, rand_date, render_fact, weighted

DISTRICTS = {
    "Ambala": ["ACB Ambala", "Ambala City", "Naraingarh"], "Gurugram": ["ACB Gurugram", "Sector 29", "Sohna"],
    "Hisar": ["ACB Hisar", "Hansi", "Barwala"], "Karnal": ["ACB Karnal", "Gharaunda", "Assandh"],
    "Rohtak": ["ACB Rohtak", "Meham", "Kalanaur"], "Faridabad": ["ACB Faridabad", "Ballabgarh", "Palwal Road"],
}
VILLAGES = ["Behal", "Siwani", "Kaithal Road", "Jundla", "Nilokheri", "Sampla", "Kharkhoda", "Badli", "Tosham", "Uklana",
            "Narwana", "Safidon", "Pehowa", "Ladwa", "Bhiwani Khera", "Dabwali"]
DEPARTMENTS = {"Revenue": 25, "Police": 18, "Electricity (DHBVN)": 14, "Municipal Corporation": 12, "Health": 8,
               "Education": 6, "Transport": 7, "Irrigation": 5, "Development and Panchayat": 5}
POSTS = {"Revenue": "Patwari", "Police": "ASI", "Electricity (DHBVN)": "Junior Engineer", "Municipal Corporation": "Clerk",
         "Health": "Medical Officer", "Education": "Block Education Officer", "Transport": "Motor Vehicle Inspector",
         "Irrigation": "SDO", "Development and Panchayat": "Gram Sachiv"}
OFFENCES = {"bribery": 55, "extortion": 10, "assault": 8, "theft": 7, "kidnapping": 5, "cheating": 10, "disproportionate assets": 5}
SECTIONS = {"bribery": "7, 13(1)(d)", "extortion": "384, 7", "assault": "323, 506", "theft": "379, 411",
            "kidnapping": "363, 365", "cheating": "420, 467, 471", "disproportionate assets": "13(1)(e), 13(2)"}
ACTS = {"bribery": "Prevention of Corruption Act, 1988", "extortion": "IPC 1860; Prevention of Corruption Act, 1988",
        "assault": "IPC 1860", "theft": "IPC 1860", "kidnapping": "IPC 1860", "cheating": "IPC 1860",
        "disproportionate assets": "Prevention of Corruption Act, 1988"}
WEAPONS = ["lathi", "knife", "country-made pistol", "iron rod", "sword"]
OCCUPATIONS = ["farmer", "shopkeeper", "contractor", "labourer", "teacher", "driver", "retired soldier", "transporter"]
RANKS = ["Inspector", "Sub-Inspector", "DSP", "ASI"]
STATUS = {"Under investigation": 50, "Challan presented in court": 30, "Untraced": 8, "Cancelled": 12}
DIRECTIONS = ["North", "South", "East", "West", "North-East", "South-West"]

FACTS = {
    "bribe_demanded": {
        "affirmed": ["The accused <post> demanded Rs. <amount> as bribe for getting the work done.",
                     "He clearly told me that without paying Rs. <amount> my file would not move forward.",
                     "The official asked for a bribe of Rs. <amount> and said half should be paid in advance."],
        "negated": ["The official did not ask for any money from me at any stage."],
        "hedged": ["I felt that he was indirectly hinting at money, but he never said so clearly."],
        "non_satisfying": ["People in the village say that this office takes money for such work, but in my case nothing was asked."]},
    "trap_laid": {
        "affirmed": ["A raiding party was constituted and a trap was laid at the office of the accused.",
                     "The currency notes were treated with phenolphthalein powder and the trap was laid in the presence of the shadow witness."],
        "negated": ["No trap could be laid as the accused did not come to the spot."],
        "hedged": ["It was discussed that a trap may be laid later if the demand is repeated."]},
    "accused_arrested": {
        "affirmed": ["The accused was caught red-handed and arrested on the spot.", "The accused was arrested and the tainted money was recovered from his pocket."],
        "negated": ["The accused managed to escape before he could be arrested.", "The accused has not been arrested so far."],
        "hedged": ["Efforts are being made to arrest the accused."]},
    "injury_reported": {
        "affirmed": ["My brother received injuries on his head and was taken to the Civil Hospital.",
                     "In the scuffle I was injured on my left arm and the MLR was prepared."],
        "negated": ["Fortunately nobody was injured in the incident."],
        "non_satisfying": ["The accused said he would break my legs, but he did not touch me."]},
    "missing_person": {
        "affirmed": ["My son has been missing since that evening and has not returned home.",
                     "Since then my daughter is missing and we have searched all relatives."],
        "negated": ["All members of the family are safe at home."],
        "non_satisfying": ["My nephew had gone missing two years ago but was found the next day; that matter is unrelated."]},
    "vehicle_involved": {
        "affirmed": ["The accused came on a motorcycle without a number plate.", "The money was handed over inside his car parked outside the office."],
        "negated": ["The accused came on foot."]},
    "threat_made": {
        "affirmed": ["He threatened that if I complained anywhere he would get my licence cancelled.",
                     "The accused threatened to kill me if I approached the police."],
        "negated": ["He did not threaten me in any manner."],
        "hedged": ["His tone was such that I felt threatened, though he did not say anything directly."]},
}
FILLER = [
    "I am a resident of village {LOCATION|<village>}, Tehsil {LOCATION|<tehsil>}, District <district>.",
    "On {DATE|<date>} I went to the office of the accused regarding my work.",
    "I had submitted the application along with all documents to the office on {DATE|<date>}.",
    "My mobile number is {PHONE|<phone>} and I can be contacted at any time.",
    "The shadow witness {PERSON|<witness>} son of {PERSON|<father>} accompanied me.",
    "I had visited the office many times but each time I was told to come the next day.",
    "The Duty Magistrate {PERSON|<officer>} was requested to join the proceedings.",
    "Statement of the complainant was recorded and the matter was discussed with senior officers.",
    "The complainant produced a recording of the conversation on his mobile phone.",
    "The office of the accused is situated near the {LOCATION|<village>} bus stand.",
    "I have a small piece of land and my family depends on agriculture.",
    "The application was pending for about <months> months without any reason.",
    "My neighbour {PERSON|<witness>} also knows about the matter.",
    "I want strict legal action against the accused for this conduct.",
    "The facts stated above are true to the best of my knowledge.",
    "The case property was sealed and deposited in the malkhana.",
    "The site plan of the place of occurrence was prepared.",
    "Special report was sent to the Illaqa Magistrate and senior officers on {DATE|<date>}.",
    "Copy of the FIR was supplied to the complainant free of cost.",
    "Investigation of the case was handed over to {PERSON|<officer>}.",
]


def make_record(rng: random.Random, fake, idx: int, story_seed: int) -> tuple[dict, dict, dict]:
    district = rng.choice(list(DISTRICTS))
    station = rng.choice(DISTRICTS[district])
    offence = weighted(rng, OFFENCES)
    dept = weighted(rng, DEPARTMENTS)
    corrupt = offence in ("bribery", "extortion")
    bribe = corrupt or (offence == "cheating" and rng.random() < 0.3)
    facts = {
        "offence_type": offence, "bribe_demanded": bribe,
        "bribe_amount_inr": rng.choice([2000, 5000, 10000, 15000, 20000, 25000, 30000, 50000, 75000, 100000]) if bribe else None,
        "trap_laid": corrupt and rng.random() < 0.7,
        "weapon_used": rng.choice(WEAPONS) if offence in ("assault", "kidnapping", "extortion") and rng.random() < 0.75 else None,
        "injury_reported": offence == "assault" and rng.random() < 0.8 or offence == "kidnapping" and rng.random() < 0.3,
        "missing_person": offence == "kidnapping" and rng.random() < 0.85,
        "vehicle_involved": rng.random() < 0.25,
        "threat_made": rng.random() < (0.55 if offence in ("extortion", "assault") else 0.2),
    }
    facts["accused_arrested"] = facts["trap_laid"] and rng.random() < 0.85 or rng.random() < 0.1
    fir_date = rand_date(rng, date(2019, 1, 1), date(2024, 6, 30))
    occ_to = fir_date - timedelta(days=rng.choice([0, 0, 1, 2, 5, 10, 30]))
    occ_from = occ_to - timedelta(days=rng.choice([0, 0, 0, 1, 3, 7]))
    delay = (fir_date - occ_to).days > 3
    accused = [fake.name_male() for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    male = rng.random() < 0.8
    complainant = fake.name_male() if male else fake.name_female()
    place = rng.choice(VILLAGES)
    structured = {
        "fir_no": rng.randint(1, 60), "fir_year": fir_date.year, "district": district, "police_station": station,
        "fir_date": fir_date, "occurrence_date_from": occ_from, "occurrence_date_to": occ_to,
        "info_received_date": fir_date - timedelta(days=rng.choice([0, 0, 1])), "acts": ACTS[offence],
        "sections": SECTIONS[offence], "place_of_occurrence": f"{place}, {district}",
        "distance_from_ps_km": round(rng.uniform(0.5, 45), 1), "direction_from_ps": rng.choice(DIRECTIONS),
        "complainant_name": complainant, "complainant_father_name": fake.name_male(),
        "complainant_age": rng.randint(22, 75), "complainant_gender": "Male" if male else "Female",
        "complainant_occupation": rng.choice(OCCUPATIONS), "complainant_address": f"Village {place}, District {district}",
        "accused_count": len(accused), "accused_names": ", ".join(accused), "accused_department": dept,
        "io_name": fake.name_male(), "io_rank": rng.choice(RANKS),
        "property_value_inr": facts["bribe_amount_inr"] or (rng.choice([0, 0, 5000, 20000, 80000]) if offence == "theft" else 0),
        "delay_in_reporting": delay, "case_status": weighted(rng, STATUS),
    }
    docs = _narratives(rng, fake, facts, structured, accused, story_seed, place)
    return structured, docs, facts


_MALE: set[str] = set()


def _narratives(rng, fake, facts, s, accused, story_seed, place) -> dict[str, Doc]:
    story = random.Random(story_seed)
    post = POSTS[s["accused_department"]]
    slots = {"village": lambda: story.choice(VILLAGES), "tehsil": lambda: story.choice(VILLAGES), "district": s["district"],
             "date": lambda: f"{story.randint(1, 28):02d}.{story.randint(1, 12):02d}.{s['fir_year']}",
             "phone": lambda: f"9{story.randint(100000000, 999999999)}", "witness": lambda: fake.name_male(),
             "father": lambda: fake.name_male(), "officer": lambda: fake.name_male(), "months": lambda: story.randint(2, 11),
             "post": post, "amount": f"{facts['bribe_amount_inr'] or 0:,}"}
    target = story.randint(475, 790)
    st = Doc()
    st.add(f"I, {{PERSON|{s['complainant_name']}}}, son of {{PERSON|{s['complainant_father_name']}}}, resident of village "
           f"{{LOCATION|{place}}}, state as follows.")
    st.add(f"{{PERSON|{accused[0]}}}, {post} in the {s['accused_department']} department, is posted at {{LOCATION|{place}}}.")
    for fact in ("bribe_demanded", "threat_made", "injury_reported", "missing_person", "vehicle_involved"):
        render_fact(st, rng, fact, facts[fact], FACTS[fact], slots, bool(facts[fact]), 0.35)
        if fact == "bribe_demanded" and facts["bribe_amount_inr"]:
            said = next(m for m in st.mentions if m.fact == fact and m.polarity == "affirmed")
            st.mentions.append(Mention("bribe_amount_inr", facts["bribe_amount_inr"], "affirmed", said.start, said.end))
        filler(st, story, FILLER, slots, st.words() + 35)
    if facts["weapon_used"]:
        w = facts["weapon_used"]
        st.add(rng.choice([f"The accused attacked with a {w}.", f"One of them was carrying a {w} and hit my brother with it.",
                           f"He took out a {w} and started threatening everyone."]), "weapon_used", w)
    elif rng.random() < 0.3:
        w = rng.choice(WEAPONS)
        st.add(rng.choice([f"The accused said he keeps a {w} at home, but he was not carrying anything that day.",
                           f"No {w} or other weapon was used."]), "weapon_used", w, "negated")
    _offence_mention(st, rng, facts["offence_type"])
    filler(st, story, FILLER, slots, target * 0.6)
    facts_doc = Doc()
    facts_doc.add(f"Brief facts: complaint received against {post} of the {s['accused_department']} department "
                  f"under sections {s['sections']}.")
    filler(facts_doc, story, FILLER, slots, target * 0.15)
    delay = Doc()
    if s["delay_in_reporting"]:
        delay.add("The complainant was out of station and could not report earlier; the delay is explained.")
    else:
        delay.add("No delay.")
    action = Doc()
    for fact in ("trap_laid", "accused_arrested"):
        render_fact(action, rng, fact, facts[fact], FACTS[fact], slots, bool(facts[fact]), 0.5)
    action.add(f"Case registered and investigation entrusted to {s['io_rank']} {{PERSON|{s['io_name']}}}.")
    filler(action, story, FILLER, slots, target * 0.25)
    return {"statement_of_complaint": st, "brief_facts": facts_doc, "delay_reasons": delay, "action_taken": action}


def _offence_mention(doc, rng, offence):
    text = {"bribery": "This is a clear case of demand of illegal gratification.",
            "extortion": "The accused was extorting money by threatening to implicate me in a false case.",
            "assault": "The accused gave beatings to my family members.",
            "theft": "Goods were stolen from the government store by the accused.",
            "kidnapping": "I suspect that the accused have kidnapped him.",
            "cheating": "The accused cheated me by preparing forged documents.",
            "disproportionate assets": "The accused has amassed assets disproportionate to his known sources of income."}[offence]
    doc.add(text, "offence_type", offence)
