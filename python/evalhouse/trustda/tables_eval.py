"""Landing tables of TrustDABench's evaluation (part 2): system outputs, trajectories, judgments."""
from ..landing import declare

OUTPUTS = declare(
    "trustda_eval_outputs",
    {
        "system": "string",  # path-follower | evidence-gated | llm | llm+gate
        "model": "string",  # provider/name for LLM systems, 'builtin' for built-in systems
        "instance_id": "string",  # trustda_instances.instance_id, or the source_task_id for originals
        "source_task_id": "string",
        "track": "string",  # original | reliability | robustness
        "package_hash": "string",  # the package answered (a regenerated instance gets a new one)
        "reply": "string",  # the final answer text ('' when there is no usable final answer)
        "has_final_answer": "bool",
        "decision": "string",  # answer | refuse | none (built-ins and structured finals)
        "findings": "json",  # the gate's findings behind a refusal or caveat (built-ins, llm+gate)
        "status": "string",  # ok | no_final_answer | over_budget | llm_error | path_error | system_error
        "error": "string",
        "turns": "int",
        "tool_calls": "int",
        "tool_errors": "int",
        "input_tokens": "int",
        "output_tokens": "int",
        "latency_ms": "float",
        "gate_ms": "float",
    },
    "One row per (system, model, instance) reply; item_id = '<system>|<model>|<instance_id>'.",
)

TRAJECTORY_STEPS = declare(
    "trustda_eval_trajectory_steps",
    {
        "output_id": "string",  # item_id of the trustda_eval_outputs row
        "step": "int",
        "role": "string",  # system | user | assistant | tool
        "content": "string",
        "tool_name": "string",
        "tool_call_id": "string",
        "tool_arguments": "json",
        "tool_status": "string",  # ok | error | timeout | killed | denied (tool rows)
        "request_hash": "string",  # the LLM call behind an assistant step
    },
    "One row per message of an agent trajectory; item_id = '<output_id>#<step>'.",
)

JUDGMENTS = declare(
    "trustda_eval_judgments",
    {
        "output_run_id": "string",  # run_id of the judged trustda_eval_outputs row
        "output_id": "string",  # its item_id
        "judge": "string",  # rule | llm
        "judge_model": "string",
        "mode": "string",  # full | partial | none
        "score": "float",  # 1 | 0.5 | 0
        "failure_form": "string",  # silent_unsupported | recognized_overridden | exhausted | empty_unusable | null
        "rationale": "string",
        "request_hash": "string",
    },
    "Reliability judgment of one reply; item_id = '<judge>|<judge_model>|<output_run_id>/<output_id>'.",
)

CORRECTNESS = declare(
    "trustda_eval_correctness",
    {
        "output_run_id": "string",
        "output_id": "string",
        "rule": "string",  # dabench_official
        "counted_official": "bool",  # False when the official script drops the reply (missing/empty)
        "correct_official": "bool",
        "correct_strict": "bool",
        "sub_correct": "json",
        "extracted": "json",
    },
    "Correctness of one reply to an original or robustness instance; item_id = '<output_run_id>/<output_id>'.",
)
