"""@ingot integrations, built on mirx only: the generated CLI (`assay.ingot.cli`) and the MCP
server (`assay.ingot.mcp`, the optional extra `assay[mcp]`), over a shared model of commands
and tools (`assay.ingot.tools`: names, JSON Schemas from `assay.ingot.schema`, hints inferred
by `assay.ingot.effects`). See docs/ingot.md."""
