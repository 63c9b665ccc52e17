"""TrustDABench's report sections, read from its public marts only."""
from __future__ import annotations

import pandas as pd

from ..report.sections import Chart, Section, Table
from ..warehouse import table_exists

RELIABILITY_OPS = ["EC", "HC", "DAM", "DM", "FDM", "FLM", "SCM"]
ROBUSTNESS_OPS = ["ROS", "COS", "HSS", "SDC", "EVR", "USC", "WLR", "RD", "HHR", "CSR", "DFI", "NRI"]


def sections(con) -> list[Section]:
    out = []
    if table_exists(con, "trustda_dataset_stats"):
        out.append(dataset_section(con))
    out += [reliability_section(con), robustness_section(con), gate_tradeoff_section(con)]
    return out


def _missing(mart: str) -> str:
    return f"The `{mart}` mart is not built yet: run `evalhouse run -b trustda`, `evalhouse judge -b trustda` and `evalhouse build`."


def _system_label(frame: pd.DataFrame) -> pd.Series:
    return frame["system"].where(frame["model"] == "builtin", frame["system"] + " · " + frame["model"])


def dataset_section(con) -> Section:
    section = Section("trustda-data", "TrustDABench: instances",
                      "Accepted perturbed instances per track and dataset (mart `trustda_dataset_stats`, paper Table 1).")
    section.blocks.append(Table("Benchmark dataset statistics", con.execute(
        "select * from trustda_dataset_stats order by track, dataset").df()))
    return section


def reliability_section(con) -> Section:
    section = Section("trustda-reliability", "TrustDABench: reliability",
                      "Refusal on unanswerable instances: full (1), partial (0.5) or no refusal (0); "
                      "MRS = FRR + 0.5·PRR, in percent (marts `trustda_reliability`, `trustda_operator_effects`, "
                      "`trustda_failure_stages`).")
    if not table_exists(con, "trustda_reliability"):
        section.intro = _missing("trustda_reliability")
        return section
    rel = con.execute("select * from trustda_reliability order by system, model, dataset").df()
    if rel.empty:
        section.intro += " No judged replies yet."
        return section
    rel["system_label"] = _system_label(rel)
    table2 = rel[rel["dataset"] != "all"].pivot_table(index="system_label", columns="dataset",
                                                      values=["frr", "prr", "nrr", "mrs"], aggfunc="first")
    table2.columns = [f"{ds} {metric.upper()}" for metric, ds in table2.columns]
    table2 = table2[sorted(table2.columns)].join(rel.groupby("system_label")["avg_mrs"].first().rename("Avg. MRS"))
    section.blocks.append(Table("Reliability per system and dataset (Table 2)", table2.round(2).reset_index(),
                                note="Rates in percent over judged replies; Avg. MRS is the mean over datasets."))
    pooled = rel[rel["dataset"] == "all"][["system_label", "n_judged", "mrs", "mrs_conflict", "mrs_deletion",
                                           "n_conflict", "n_deletion", "judges"]]
    section.blocks.append(Table("Conflict vs deletion operators (micro-averaged MRS, both datasets)",
                                pooled.round(2)))
    effects = _effects(con, "reliability")
    if not effects.empty:
        section.blocks.append(Chart("MRS per reliability operator (Figure 3)", "grouped_bar",
                                    effects[["operator_code", "system_label", "mrs"]].to_dict("records"),
                                    x="operator_code", y="mrs", series="system_label",
                                    x_label="operator", y_label="MRS (%)"))
        modes = effects[["operator_code", "system_label", "frr", "prr", "nrr"]].melt(
            id_vars=["operator_code", "system_label"], value_vars=["frr", "prr", "nrr"], var_name="mode",
            value_name="rate")
        modes["column"] = modes["system_label"] + " · " + modes["mode"].str.upper()
        section.blocks.append(Chart("Response modes per reliability operator (Figure 4)", "heatmap",
                                    modes[["operator_code", "column", "rate"]].to_dict("records"),
                                    x="column", y="operator_code", value="rate"))
    if table_exists(con, "trustda_failure_stages"):
        stages = con.execute("select * from trustda_failure_stages where dataset = 'all' "
                             "order by system, model, share desc").df()
        if not stages.empty:
            stages["system_label"] = _system_label(stages)
            section.blocks.append(Table("Failure stages of no-refusal replies (Table 9)", stages[[
                "system_label", "failure_stage", "operator_code", "n_no_refusal", "share", "paper_share",
                "n_silent_unsupported", "n_recognized_overridden", "n_exhausted", "n_empty_unusable"]].round(2)))
    return section


def _effects(con, track: str) -> pd.DataFrame:
    if not table_exists(con, "trustda_operator_effects"):
        return pd.DataFrame()
    frame = con.execute("select * from trustda_operator_effects where dataset = 'all' and track = ? "
                        "order by system, model, operator_code", [track]).df()
    if not frame.empty:
        frame["system_label"] = _system_label(frame)
        order = RELIABILITY_OPS if track == "reliability" else ROBUSTNESS_OPS
        frame["_o"] = frame["operator_code"].map({c: i for i, c in enumerate(order)})
        frame = frame.sort_values(["_o", "system_label"]).drop(columns="_o")
    return frame


def robustness_section(con) -> Section:
    section = Section("trustda-robustness", "TrustDABench: robustness",
                      "Correctness under semantics-preserving perturbations of originally solved questions "
                      "(DABench official rule; the strict variant counts empty replies as wrong). ASR and RAD in "
                      "percent; RAD divides by all N original questions (marts `trustda_robustness`, "
                      "`trustda_operator_effects`).")
    if not table_exists(con, "trustda_robustness"):
        section.intro = _missing("trustda_robustness")
        return section
    rob = con.execute("select * from trustda_robustness order by system, model, variant, dataset").df()
    if rob.empty:
        section.intro += " No scored replies yet."
        return section
    rob["system_label"] = _system_label(rob)
    cols = ["system_label", "variant", "dataset", "n_original", "n_covered", "coverage", "acc_clean", "asr", "rad",
            "acc_rob", "avg_asr"]
    section.blocks.append(Table("Robustness per system, variant and dataset (Table 3)", rob[cols].round(2)))
    levels = rob[(rob["dataset"] == "all") & (rob["variant"] == "official")]
    level_cols = ["asr_l0", "asr_l1", "asr_l2", "asr_l3"]
    level_rows = levels[["system_label", *level_cols]].melt(id_vars=["system_label"], value_vars=level_cols,
                                                             var_name="level", value_name="asr").dropna()
    if not level_rows.empty:
        level_rows["level"] = level_rows["level"].str.replace("asr_l", "L")
        section.blocks.append(Chart("ASR by difficulty level (Figure 6)", "line", level_rows.to_dict("records"),
                                    x="level", y="asr", series="system_label", x_label="level", y_label="ASR (%)"))
        section.blocks.append(Table("Spearman correlation between operator level and ASR (official rule)",
                                    levels[["system_label", "spearman_level_asr", "n_operators", "asr_l0", "asr_l1",
                                            "asr_l2", "asr_l3"]].round(3)))
    effects = _effects(con, "robustness")
    if not effects.empty and effects["asr"].notna().any():
        section.blocks.append(Chart("ASR per robustness operator (Figure 5)", "grouped_bar",
                                    effects[["operator_code", "system_label", "asr"]].dropna().to_dict("records"),
                                    x="operator_code", y="asr", series="system_label",
                                    x_label="operator", y_label="ASR (%)"))
    return section


def gate_tradeoff_section(con) -> Section:
    section = Section("trustda-gate", "TrustDABench: the evidence gate's trade-off",
                      "A gate that refuses everything would score a perfect MRS: its refusal rate on answerable "
                      "inputs (robustness instances, and unperturbed tasks = false refusals) belongs next to MRS.")
    if not table_exists(con, "trustda_reliability"):
        section.intro = _missing("trustda_reliability")
        return section
    frame = con.execute("select * from trustda_reliability where dataset = 'all' and refusal_rate_reliability "
                        "is not null order by system, model").df()
    if frame.empty:
        return section
    frame["system_label"] = _system_label(frame)
    section.blocks.append(Table("MRS vs refusals on answerable inputs (both datasets)", frame[[
        "system_label", "mrs", "frr", "refusal_rate_reliability", "refusal_rate_robustness",
        "false_refusal_rate", "n_original"]].round(2)))
    section.blocks.append(Chart("MRS vs false-refusal rate", "scatter", frame[[
        "system_label", "false_refusal_rate", "mrs"]].to_dict("records"), x="false_refusal_rate", y="mrs",
        series="system_label", x_label="false-refusal rate on unperturbed tasks (%)", y_label="MRS (%)"))
    return section
