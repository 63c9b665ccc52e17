"""The CIPHER section of the report, drawn from the marts only (whatever runs exist)."""
from __future__ import annotations

import pandas as pd

from ..report.sections import Chart, Section, Table

MAIN = "condition = 'redacted' and setting = 'support_controlled'"


def _has(con, table: str) -> bool:
    row = con.execute("select count(*) from information_schema.tables where table_name = ?", [table]).fetchone()
    return bool(row and row[0])


def _df(con, table: str, sql: str) -> pd.DataFrame:
    if not _has(con, table):
        return pd.DataFrame()
    return con.execute(sql).df()


def _round(frame: pd.DataFrame, digits: int = 1) -> pd.DataFrame:
    return frame.round({c: digits for c in frame.columns if frame[c].dtype.kind == "f"})


def _stats_blocks(con) -> list:
    blocks = []
    stats = _df(con, "cipher_benchmark_stats",
                "select domain, section, statistic, value, paper_value from cipher_benchmark_stats "
                "order by section, statistic, domain")
    if len(stats):
        wide = stats.pivot_table(index=["section", "statistic"], columns="domain", values=["value", "paper_value"],
                                 aggfunc="first")
        wide.columns = [f"{d} ({'paper' if k == 'paper_value' else 'here'})" for k, d in wide.columns]
        blocks.append(Table("Table 1: benchmark statistics (generated vs paper)", _round(wide.reset_index())))
    retention = _df(con, "cipher_audit_retention", "select * from cipher_audit_retention")
    if len(retention):
        blocks.append(Table("Figure 3: template-audit outcomes and retention by domain", _round(retention)))
    return blocks


def _builtin_table(con) -> list:
    frame = _df(con, "cipher_results", """
        select system, condition, setting, domain, n_instances, m1, m2, m3
        from cipher_results
        where family = 'builtin' and is_latest_run and operation = '(all)' and answer_type = '(all)'
        order by setting desc, condition, system""")
    if not len(frame):
        return []
    overall = frame[frame["domain"] == "(all)"].drop(columns="domain")
    main = frame[(frame["domain"] != "(all)") & (frame["condition"] == "redacted")
                 & (frame["setting"] == "support_controlled")]
    by_domain = main.pivot_table(index="system", columns="domain", values="m3", aggfunc="first").reset_index()
    return [Table("Built-in systems: M1 / M2 / M3 (%, per-instance means, all domains)", _round(overall),
                  note="oracle-sql executes the gold SQL on the annotation view and must score M3 = 100."),
            Table("Built-in systems: M3 (%) by domain (redacted, support-controlled)", _round(by_domain))]


def _heatmaps(con) -> list:
    frame = _df(con, "cipher_results", f"""
        select domain, system, model, m3 from cipher_results
        where is_latest_run and {MAIN} and operation = '(all)' and answer_type = '(all)' and domain <> '(all)'
          and system <> 'oracle-sql'
        order by domain, system, model""")
    blocks = []
    for domain, part in frame.groupby("domain", sort=True):
        blocks.append(Chart(f"Figure 4 ({domain}): M3 by method and model (redacted, support-controlled)",
                            "heatmap", _round(part).to_dict("records"), x="model", y="system", value="m3",
                            x_label="model", y_label="method"))
    llm = _df(con, "cipher_results", f"""
        select domain, system, model, m1, m2, m3 from cipher_results
        where is_latest_run and {MAIN} and model <> 'builtin' and operation = '(all)' and answer_type = '(all)'
        order by domain, system, model""")
    if len(llm):
        blocks.append(Table("Table 5: LLM methods, M1 / M2 / M3 (%)", _round(llm)))
    full = _df(con, "cipher_results", """
        select domain, system, model, m1, m2, m3 from cipher_results
        where is_latest_run and condition = 'redacted' and setting = 'full_table' and model <> 'builtin'
          and operation = '(all)' and answer_type = '(all)' order by domain, system""")
    if len(full):
        blocks.append(Table("Table 3: full-table setting, M1 / M2 / M3 (%)", _round(full)))
    return blocks


def _restoration(con) -> list:
    frame = _df(con, "cipher_restoration", """
        select r.domain, r.system || ' / ' || r.model as configuration, r.n_paired,
               r.m3_redacted, r.m3_restored, r.delta_m1, r.delta_m2, r.delta_m3
        from cipher_restoration r
        join (select distinct run_id from cipher_results where is_latest_run) l using (run_id)
        where r.setting = 'support_controlled' and r.system <> 'oracle-sql'
        order by r.domain, configuration""")
    blocks = []
    for domain, part in frame.groupby("domain", sort=True):
        blocks.append(Chart(f"Figure 5 ({domain}): M3 redacted -> restored", "arrows", _round(part).to_dict("records"),
                            x="configuration", y="m3_redacted", value="m3_restored", x_label="M3 (%)"))
    if len(frame):
        blocks.append(Table("Table 6: restoration deltas (restored - redacted, points)", _round(frame)))
    return blocks


def _failures(con) -> list:
    scope = _df(con, "cipher_failure_modes",
                "select system_scope from cipher_failure_modes where system_scope in ('(all llm)', '(all non-oracle)') "
                "group by 1 order by case system_scope when '(all llm)' then 0 else 1 end limit 1")
    if not len(scope):
        return []
    chosen = scope.iloc[0, 0]
    blocks = []
    for population, title in (("sample_majority_failed", "majority-failed questions, 30% seed-42 sample"),
                              ("all_failures", "all failed outputs")):
        frame = con.execute(f"""
            select operation, failure_label, share_pct, n from cipher_failure_modes
            where population = ? and system_scope = ? and {MAIN} and domain = '(all)' and operation <> '(all)'
            order by operation, label_order""", [population, chosen]).df()
        if len(frame):
            blocks.append(Chart(f"Figure 6: dominant failure mode by operation ({title}; {chosen})", "heatmap",
                                _round(frame).to_dict("records"), x="failure_label", y="operation", value="share_pct",
                                x_label="primary failure mode", y_label="operation"))
    return blocks


def _builtin_run(con, table: str) -> str:
    """SQL for the run to show: the latest scored built-in run, else the first run in `table`."""
    latest = "(select min(run_id) from cipher_results where is_latest_run and family = 'builtin')"
    if not _has(con, "cipher_results"):
        latest = "null"
    return f"coalesce({latest}, (select min(run_id) from {table}))"


def _retrieval(con) -> list:
    frame = _df(con, "cipher_retrieval", f"""
        select r.retriever, r.k, r.domain, r.mean_recall, r.full_recall_rate, r.n_instances
        from cipher_retrieval r
        where {MAIN} and r.run_id = {_builtin_run(con, "cipher_retrieval")}
        order by r.domain, r.retriever, r.k""")
    if not len(frame):
        return []
    overall = frame[frame["domain"] == "(all)"]
    return [Chart("Retrieval recall@k against the support set (redacted, support-controlled)", "line",
                  _round(overall).to_dict("records"), x="k", y="mean_recall", series="retriever",
                  x_label="k", y_label="mean recall (%)"),
            Table("Retrieval recall@k by domain (%)", _round(frame))]


def _costs(con) -> list:
    blocks = []
    tokens = _df(con, "cipher_eval_prompt_tokens", f"""
        select method, domain, n_prompts, mean_tokens, median_tokens, p95_tokens, max_tokens, tokenizer
        from cipher_eval_prompt_tokens where {MAIN}
        order by domain, method""")
    if len(tokens):
        blocks.append(Table("Prompt size per method (tokens per instance, redacted, support-controlled)",
                            _round(tokens, 0), note="Counted with the bundled all-MiniLM-L6-v2 WordPiece tokenizer."))
    agreement = _df(con, "cipher_eval_judge_agreement",
                    "select comparison, domain, n_pairs, agreement_pct, cohen_kappa from cipher_eval_judge_agreement "
                    "order by comparison, domain")
    if len(agreement):
        blocks.append(Table("Table 7: judge agreement (Cohen's kappa)", _round(agreement, 3)))
    return blocks


def sections(con) -> list[Section]:
    blocks = (_stats_blocks(con) + _builtin_table(con) + _heatmaps(con) + _restoration(con)
              + _failures(con) + _retrieval(con) + _costs(con))
    if not blocks:
        return []
    intro = ("Cross-record inference over privacy-hardened hybrid records. M1 = normalized token overlap, "
             "M2 = judge acceptance, M3 = per-instance harmonic mean of M1 and M2 (zero when either is "
             "zero), all averaged over instances and shown in percent.")
    return [Section(id="cipher", title="CIPHER", intro=intro, blocks=blocks)]
