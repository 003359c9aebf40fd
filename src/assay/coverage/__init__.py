"""BAML code coverage: the data model and reports (data, report, html) and the collector (collect)."""
