-- The paper's 19 operators: track, family (deletion/conflict; equivalent/redundancy), robustness
-- difficulty level L0-L3 and, for reliability operators, the evidence-verification stage that a
-- no-refusal failure under the operator skipped (appendix G, Table 9, with the paper's share).
select * from (values
    ('FDM', 'reliability', 'deletion', null, null, 'Schema/evidence binding', 27.1::double),
    ('DM', 'reliability', 'deletion', null, null, 'Value-sufficiency check', 18.4),
    ('FLM', 'reliability', 'deletion', null, null, 'Input-completeness check', 4.5),
    ('DAM', 'reliability', 'deletion', null, null, 'Multi-step dependency propagation', 10.3),
    ('SCM', 'reliability', 'deletion', null, null, 'Structural context recovery', 3.3),
    ('EC', 'reliability', 'conflict', null, null, 'Evidence consistency check', 16.7),
    ('HC', 'reliability', 'conflict', null, null, 'Schema ambiguity detection', 19.6),
    ('ROS', 'robustness', 'equivalent', 'L0', 0, null, null),
    ('COS', 'robustness', 'equivalent', 'L0', 0, null, null),
    ('HSS', 'robustness', 'equivalent', 'L0', 0, null, null),
    ('EVR', 'robustness', 'equivalent', 'L1', 1, null, null),
    ('USC', 'robustness', 'equivalent', 'L1', 1, null, null),
    ('WLR', 'robustness', 'equivalent', 'L2', 2, null, null),
    ('RD', 'robustness', 'equivalent', 'L2', 2, null, null),
    ('HHR', 'robustness', 'equivalent', 'L2', 2, null, null),
    ('CSR', 'robustness', 'equivalent', 'L2', 2, null, null),
    ('SDC', 'robustness', 'redundancy', 'L0', 0, null, null),
    ('DFI', 'robustness', 'redundancy', 'L3', 3, null, null),
    ('NRI', 'robustness', 'redundancy', 'L3', 3, null, null)
) as t(operator_code, operator_track, operator_family, difficulty_level, difficulty_rank,
       failure_stage, paper_stage_share_pct)
