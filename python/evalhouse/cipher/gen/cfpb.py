"""CFPB complaints: public-export columns plus a consumer narrative written from latent facts."""
from __future__ import annotations

import random
from datetime import date, timedelta

from ..textdoc import Doc
from .common import filler, rand_date, render_fact, weighted

PRODUCTS = {
    "Checking or savings account": (["Checking account", "Savings account"],
                                    ["Managing an account", "Closing an account", "Problem with a lender or other company charging your account"]),
    "Credit card or prepaid card": (["General-purpose credit card or charge card", "Store credit card"],
                                    ["Problem with a purchase shown on your statement", "Fees or interest", "Closing your account"]),
    "Credit reporting, credit repair services, or other personal consumer reports": (["Credit reporting"],
                                    ["Incorrect information on your report", "Improper use of your report", "Problem with a company's investigation into an existing problem"]),
    "Debt collection": (["I do not know", "Credit card debt", "Medical debt"],
                        ["Attempts to collect debt not owed", "Written notification about debt", "False statements or representation"]),
    "Mortgage": (["Conventional home mortgage", "FHA mortgage"],
                 ["Trouble during payment process", "Struggling to pay mortgage"]),
    "Money transfer, virtual currency, or money service": (["Mobile or digital wallet", "Domestic (US) money transfer"],
                 ["Fraud or scam", "Money was not available when promised"]),
    "Vehicle loan or lease": (["Loan", "Lease"], ["Managing the loan or lease", "Struggling to pay your loan"]),
}
SUB_ISSUES = ["Deposits and withdrawals", "Account status incorrect", "Their investigation did not fix an error on your report",
              "Debt is not yours", "Card was charged for something you did not purchase with the card", "Other problem"]
COMPANIES = ["WELLS FARGO & COMPANY", "BANK OF AMERICA, NATIONAL ASSOCIATION", "JPMORGAN CHASE & CO.",
             "CAPITAL ONE FINANCIAL CORPORATION", "EQUIFAX, INC.", "Experian Information Solutions Inc.",
             "TRANSUNION INTERMEDIATE HOLDINGS, INC.", "CITIBANK, N.A.", "Navient Solutions, LLC.",
             "ALLY FINANCIAL INC.", "PAYPAL HOLDINGS, INC.", "SYNCHRONY FINANCIAL"]
SHORT = {"WELLS FARGO & COMPANY": "Wells Fargo", "BANK OF AMERICA, NATIONAL ASSOCIATION": "Bank of America",
         "JPMORGAN CHASE & CO.": "Chase", "CAPITAL ONE FINANCIAL CORPORATION": "Capital One", "EQUIFAX, INC.": "Equifax",
         "Experian Information Solutions Inc.": "Experian", "TRANSUNION INTERMEDIATE HOLDINGS, INC.": "TransUnion",
         "CITIBANK, N.A.": "Citibank", "Navient Solutions, LLC.": "Navient", "ALLY FINANCIAL INC.": "Ally",
         "PAYPAL HOLDINGS, INC.": "PayPal", "SYNCHRONY FINANCIAL": "Synchrony"}
STATES = {"CA": "West", "TX": "South", "FL": "South", "NY": "Northeast", "GA": "South", "IL": "Midwest", "PA": "Northeast",
          "OH": "Midwest", "NC": "South", "NJ": "Northeast", "WA": "West", "AZ": "West", "MI": "Midwest", "VA": "South",
          "MA": "Northeast", "CO": "West", "MN": "Midwest", "MD": "South"}
RESPONSES = {"Closed with explanation": 60, "Closed with monetary relief": 12, "Closed with non-monetary relief": 18, "In progress": 5, "Untimely response": 5}
RESOLUTIONS = {"refund": 20, "credit_correction": 18, "denied": 25, "no_response": 12, "unresolved": 25}

FACTS = {
    "restricted_account_access": {
        "affirmed": ["When I tried to log in to the app it said my account had been frozen and I could not touch any of my money.",
                     "The bank placed a hold on my account and I was locked out of online banking for <days> days.",
                     "They restricted my access to the account pending a review, so I could not pay my rent on time.",
                     "My debit card was declined at every store because the bank had blocked the account without telling me.",
                     "I was told by {PERSON|<rep>} that my accounts were frozen due to suspicious activity and that I had no access to my funds."],
        "negated": ["To be clear, my account was never frozen and I could still use my card the whole time.",
                    "I still have full access to my account; the problem is only this one transaction."],
        "hedged": ["I am worried they may freeze my account if I keep disputing this charge.",
                   "It seemed like my account might have been restricted, but I honestly am not sure."],
        "non_satisfying": ["My sister had her account frozen at another bank last year, which is why this situation makes me nervous.",
                           "The representative explained that accounts are sometimes restricted when fraud is suspected, but mine was not affected."]},
    "fraud_alleged": {
        "affirmed": ["These charges are fraudulent; I never authorized them and I do not recognize the merchant.",
                     "Someone made unauthorized withdrawals from my account and the company refuses to treat it as fraud.",
                     "I believe this is fraud because I was at work in {LOCATION|<city>} when the transactions were made."],
        "negated": ["I am not claiming fraud here; I made the purchase myself but the amount is wrong.",
                    "This is not a fraud case, it is a billing error."],
        "hedged": ["I do not know if this is fraud or just a mistake by the company."],
        "non_satisfying": ["The agent kept reading me a script about fraud prevention, which had nothing to do with my problem."]},
    "identity_theft": {
        "affirmed": ["I am a victim of identity theft and the accounts listed on my report were opened by someone else using my information.",
                     "Someone stole my identity and opened a credit card in my name on {DATE|<date>}.",
                     "I filed an identity theft report with the FTC because a thief used my social security number."],
        "negated": ["My identity was not stolen; the account is mine but it is reported incorrectly."],
        "hedged": ["I suspect my identity may have been compromised, but I have no proof of that."],
        "non_satisfying": ["The company suggested I sign up for identity theft protection, which I declined."]},
    "amount_disputed_usd": {
        "affirmed": ["The amount I am disputing is <amount>.", "They charged me <amount> that I do not owe.",
                     "In total <amount> was taken out of my account and never returned."],
        "non_satisfying": ["I only have about {$50.00} left in the account after all of this."]},
    "late_fee_charged": {
        "affirmed": ["On top of that they charged me a late fee even though my payment was sent on time.",
                     "A late fee of {$39.00} was added to my statement because of their own processing delay."],
        "negated": ["I was not charged any late fees, but the interest is still wrong."],
        "non_satisfying": ["The website says late fees can apply after the due date, but I have always paid early."]},
    "credit_report_error": {
        "affirmed": ["My credit report shows a late payment that never happened.",
                     "The account appears on my credit report with an incorrect balance and a wrong status.",
                     "There is an inaccurate collection account on my credit report that is dragging my score down."],
        "negated": ["My credit report is accurate; this complaint is only about customer service."],
        "hedged": ["I have not checked yet, but I am afraid this may show up on my credit report."],
        "non_satisfying": ["I pulled my credit report to apply for a mortgage and everything else on it looked fine."]},
    "legal_action_mentioned": {
        "affirmed": ["I have retained an attorney and we intend to file a lawsuit if this is not corrected.",
                     "The collector threatened to sue me and garnish my wages.",
                     "I filed a case in small claims court over this on {DATE|<date>}."],
        "negated": ["I do not want to involve a lawyer, I just want the error fixed."],
        "non_satisfying": ["My neighbor, who is a paralegal, told me to keep copies of everything."]},
}
RESOLUTION_TEXT = {
    "refund": ["After weeks of calls they finally refunded the money to my account.", "The company eventually issued a full refund."],
    "credit_correction": ["They corrected the information on my report after I sent the documents a second time.",
                          "The bureau finally updated the account to show the correct status."],
    "denied": ["They denied my claim and said the investigation found no error.", "My dispute was rejected without any explanation."],
    "no_response": ["The company never responded to any of my letters.", "I have not received any response from them at all."],
    "unresolved": ["As of today the problem is still not resolved.", "Nothing has been fixed and I am still waiting."],
}
FILLER = [
    "On {DATE|<date>} I called the customer service line and spoke with a representative named {PERSON|<rep>}.",
    "I was transferred <n> times and each person told me something different.",
    "I sent a written letter to their office in {LOCATION|<city>} by certified mail on {DATE|<date>}.",
    "I have been a customer of <company> for <years> years and have never had a problem like this before.",
    "The representative promised that a supervisor would call me back within 48 hours, but that never happened.",
    "I have kept copies of every statement, letter and email related to this account.",
    "My account number ending in {ACCOUNT|<acct>} is the one involved.",
    "I asked for a written explanation and was told it would be mailed to my home address at {ADDRESS|<address>}.",
    "This situation has caused me a great deal of stress and I have lost sleep over it.",
    "I work full time and it is very difficult for me to stay on hold during business hours.",
    "I went to the branch on {DATE|<date>} and the manager, {PERSON|<rep>}, said there was nothing she could do.",
    "The online chat agent ended the conversation before I could explain the problem.",
    "I have attached screenshots of the messages I received from the company.",
    "I reviewed my statements for the previous <n> months and compared them with my own records.",
    "They asked me to verify my identity again, which I did by providing my date of birth and the last four digits of my social.",
    "Please help me get this matter resolved because I do not know where else to turn.",
    "I also reached out to them through social media and got an automated reply.",
    "My spouse, {PERSON|<other>}, was on the call with me and can confirm what was said.",
    "The letter I received was dated {DATE|<date>} but did not arrive until more than a week later.",
    "I explained the situation calmly and provided every document they requested.",
    "They told me the matter had been escalated to their back office team.",
    "I was given a reference number, {ACCOUNT|<acct>}, and told to call back in ten business days.",
    "According to their own policy, they are supposed to respond within thirty days.",
    "I am on a fixed income and every dollar matters to my household.",
    "When I called back on {DATE|<date>} there was no record of my previous call.",
]


def _money(x: float) -> str:
    return f"{{${x:,.2f}}}"


def make_record(rng: random.Random, fake, idx: int, story_seed: int) -> tuple[dict, dict, dict]:
    product = rng.choice(list(PRODUCTS))
    subs, issues = PRODUCTS[product]
    received = rand_date(rng, date(2019, 1, 1), date(2023, 12, 31))
    lag = rng.choice([0, 0, 0, 1, 1, 2, 3, 5, 7, 14])
    sent = received + timedelta(days=lag)
    state = rng.choice(list(STATES))
    tags = rng.choices([None, "Older American", "Servicemember", "Older American, Servicemember"], [80, 10, 8, 2])[0]
    company = rng.choice(COMPANIES)
    cr = "credit reporting" in product.lower()
    facts = {
        "restricted_account_access": rng.random() < (0.45 if "account" in product.lower() or "Money" in product else 0.12),
        "fraud_alleged": rng.random() < 0.35,
        "identity_theft": rng.random() < (0.45 if cr else 0.1),
        "amount_disputed_usd": round(rng.uniform(25, 5000), 2) if rng.random() < 0.55 else None,
        "resolution_outcome": weighted(rng, RESOLUTIONS),
        "contact_attempts": rng.randint(1, 9) if rng.random() < 0.7 else None,
        "late_fee_charged": rng.random() < 0.2,
        "credit_report_error": rng.random() < (0.7 if cr else 0.12),
        "legal_action_mentioned": rng.random() < 0.15,
    }
    structured = {
        "complaint_id": 3_000_000 + idx * 7919 % 4_000_000 + idx,
        "date_received": received, "product": product, "sub_product": rng.choice(subs), "issue": rng.choice(issues),
        "sub_issue": rng.choice(SUB_ISSUES), "company_public_response": rng.choice(
            [None, None, "Company has responded to the consumer and the CFPB and chooses not to provide a public response"]),
        "company": company, "state": state, "zip_code": f"{rng.randint(100, 999)}XX", "tags": tags,
        "consumer_consent_provided": "Consent provided", "submitted_via": "Web", "date_sent_to_company": sent,
        "company_response_to_consumer": weighted(rng, RESPONSES), "timely_response": rng.random() < 0.95,
        "consumer_disputed": "N/A", "received_year": received.year, "received_month": received.month,
        "received_quarter": f"{received.year}Q{(received.month - 1) // 3 + 1}", "sent_lag_days": lag,
        "region": STATES[state], "has_tags": tags is not None,
    }
    doc = _narrative(rng, fake, facts, company, story_seed)
    return structured, {"consumer_complaint_narrative": doc}, facts


def _narrative(rng, fake, facts, company, story_seed) -> Doc:
    story = random.Random(story_seed)  # near-duplicate records share the story (filler) seed
    slots = {
        "date": lambda: story.choice([f"{story.randint(1, 12):02d}/{story.randint(1, 28):02d}/{story.randint(2018, 2023)}"]),
        "rep": lambda: fake.first_name(), "other": lambda: fake.name(), "city": lambda: fake.city(),
        "company": SHORT[company], "n": lambda: story.randint(2, 6), "years": lambda: story.randint(2, 25),
        "acct": lambda: f"{story.randint(1000, 9999)}", "address": lambda: fake.street_address(),
        "days": lambda: rng.randint(3, 30),
    }
    doc = Doc()
    target = story.randint(560, 1070)
    doc.add(f"I am writing about a problem with my account at {SHORT[company]}.")
    filler(doc, story, FILLER, slots, target * 0.35)
    order = list(FACTS)
    rng.shuffle(order)
    for fact in order:
        value = facts[fact]
        if fact == "amount_disputed_usd":
            if value is not None:
                # Sometimes the amount itself is masked by CFPB-style de-identification.
                masked = rng.random() < 0.2
                amount = f"{{AMOUNT*|${value:,.2f}}}" if masked else _money(value)
                phrasing = FACTS[fact]
                if masked:  # one mention only, so the restored text carries one surrogate amount
                    phrasing = {**phrasing, "affirmed": [rng.choice(phrasing["affirmed"])], "hedged": []}
                render_fact(doc, rng, fact, value, phrasing, {**slots, "amount": amount}, True)
            else:
                render_fact(doc, rng, fact, None, FACTS[fact], slots, False)
            continue
        render_fact(doc, rng, fact, value, FACTS[fact], slots, bool(value))
        if rng.random() < 0.5:
            filler(doc, story, FILLER, slots, doc.words() + 40)
    if facts["contact_attempts"] is not None:
        n = facts["contact_attempts"]
        doc.add(rng.choice([f"I have contacted them {n} times about this.",
                            f"Altogether I reached out to the company {n} times by phone and email.",
                            f"This is my {_ordinal(n)} attempt to contact them about this issue."]),
                "contact_attempts", n)
    filler(doc, story, FILLER, slots, target * 0.9)
    doc.add(rng.choice(RESOLUTION_TEXT[facts["resolution_outcome"]]), "resolution_outcome", facts["resolution_outcome"])
    if facts["resolution_outcome"] in ("denied", "unresolved") and rng.random() < 0.4:
        doc.add("They said a refund might be possible in the future, but nothing was ever issued.",
                "resolution_outcome", "refund", "hedged")
    filler(doc, story, FILLER, slots, target)
    doc.add("I am asking the CFPB to help me resolve this matter.")
    return doc


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth"}[n]
