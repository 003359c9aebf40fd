"""LLM functions at run time: prompt rendering (`ctx.output_format()`, roles, jinja2 for `{{ … }}`
string prompts), the return type's JSON Schema, the LLM clients concrete runs take their answers
from (a Python callable, sync or async, or a replay file), and the handler the VM's `call_llm`
instructions reach (bex/llmcall.py). Sits between the compiler (which lowers prompt templates
through `prompt_block`) and bex."""
